#include "cli/step_line.hpp"

#include <algorithm>
#include <memory>

namespace ironbench::cli {
namespace {

constexpr std::size_t blank_width = 80;

}  // namespace

std::function<void(const std::string& step)> step_line(std::ostream& out, bool quiet) {
  if (quiet) return {};
  // The widest line so far, so that a shorter step blanks what a longer one left.
  auto widest = std::make_shared<std::size_t>(0);
  return [&out, widest](const std::string& step) {
    const auto line = "[" + step + "]";
    out << line << std::string(*widest > line.size() ? *widest - line.size() : 0, ' ') << '\r' << std::flush;
    *widest = std::max(*widest, line.size());
  };
}

void clear_step_line(std::ostream& out, bool quiet) {
  if (!quiet) out << std::string(blank_width, ' ') << '\r' << std::flush;
}

}  // namespace ironbench::cli
