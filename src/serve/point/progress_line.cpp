#include "serve/point/progress_line.hpp"

#include <fmt/format.h>

namespace ironbench::serve {

std::string progress_line(const load_progress& p, bool live) {
  const auto ended = p.done + p.failed;
  const std::string eta =
      ended == 0
          ? "-"
          : fmt::format("{:.0f} s", p.elapsed_s * static_cast<double>(p.total - ended) / static_cast<double>(ended));
  const auto text = fmt::format("serve: {}/{} done, {} running, {} failed, {:.1f} s, ETA {}, {:.0f} output tok/s",
                                p.done, p.total, p.running, p.failed, p.elapsed_s, eta, p.output_tokens_per_s);
  return live ? "\r" + text + "\x1b[K" : text + "\n";
}

std::string end_of_progress(bool live) { return live ? "\r\x1b[K" : ""; }

}  // namespace ironbench::serve
