#include "cli/progress_printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "core/run_estimate.hpp"
#include "core/units.hpp"
#include "report/case_tables.hpp"

namespace ironbench::cli {
namespace {

using core::progress_event;

std::string headline(const core::case_result& result) {
  if (result.metrics.empty()) return "";
  const auto& m = result.metrics.front();
  return fmt::format("{} {} ", format_number(m.value), m.unit);
}

std::size_t id_width(const progress_event& e) {
  std::size_t width = 0;
  for (const auto& d : e.devices) width = std::max(width, d.device.size());
  return width;
}

std::string left(double seconds) {
  return seconds > 0.05 ? fmt::format("{} left", core::format_wall_time(seconds)) : std::string("done");
}

// The case as a line names it, without its device: "gemm dtype=bf16 M=8192 ...".
std::string case_text(const core::planned_case& planned) {
  const auto params = planned.params.label();
  return params.empty() ? planned.bench->name() : planned.bench->name() + " " + params;
}

// "[ 3/27] gemm on cpu dtype=fp64 ..." then " 0.123 TFLOP/s valid, about 1 min left".
void one_at_a_time(std::ostream& out, const progress_event& e) {
  const auto width = std::to_string(e.total).size();
  if (e.what == progress_event::kind::started) {
    out << fmt::format("[{:>{}}/{}] {} on {} {} ...", e.done + 1, width, e.total, e.planned.bench->name(),
                       e.planned.device->id, e.planned.params.label())
        << std::flush;
    return;
  }
  out << ' ' << headline(*e.result) << report::status_cell(*e.result);
  if (e.done < e.total && e.eta_s > 0.05) out << fmt::format(", about {} left", core::format_wall_time(e.eta_s));
  out << std::endl;
}

// "[cuda:1  3/26] gemm ...: 687 TFLOP/s valid (cuda:1: 41 s left)", when a case ends.
std::string side_by_side_line(const progress_event& e) {
  const auto& d = e.devices[e.device];
  const auto width = std::to_string(d.total).size();
  return fmt::format("[{:<{}} {:>{}}/{}] {}: {}{} ({}: {})", d.device, id_width(e), d.done, width, d.total,
                     case_text(e.planned), headline(*e.result), report::status_cell(*e.result), d.device,
                     d.lost ? "lost, its cases left are not run" : left(d.eta_s));
}

// One line per device, redrawn in place.
class live_block {
 public:
  explicit live_block(std::ostream& out) : out_(out) {}

  void operator()(const progress_event& e) {
    if (!e.side_by_side) {
      one_at_a_time(out_, e);
      return;
    }
    erase();
    if (e.what == progress_event::kind::finished && e.result->status != core::case_status::valid &&
        e.result->status != core::case_status::skipped) {
      out_ << side_by_side_line(e) << '\n';  // stays above the block
    }
    const auto width = id_width(e);
    for (const auto& d : e.devices) {
      std::string doing = d.lost               ? std::string("lost: a case did not end within its time limit")
                          : !d.current.empty() ? d.current
                          : d.done == d.total  ? std::string("finished")
                                               : std::string("waiting");
      if (doing.size() > 72) doing = doing.substr(0, 69) + "...";
      const auto count = std::to_string(d.total).size();
      out_ << fmt::format("{:<{}} [{:>{}}/{}] {:<72} {}\n", d.device, width, d.done, count, d.total, doing,
                          d.lost || d.done == d.total ? std::string() : left(d.eta_s));
    }
    out_ << fmt::format("{} of {} cases, {}\n", e.done, e.total, left(e.eta_s)) << std::flush;
    drawn_ = e.devices.size() + 1;
  }

 private:
  void erase() {
    for (std::size_t i = 0; i < drawn_; ++i) out_ << "\x1b[1A\r\x1b[2K";
    drawn_ = 0;
  }

  std::ostream& out_;
  std::size_t drawn_ = 0;
};

}  // namespace

core::progress_callback progress_printer(std::ostream& out, progress_style style) {
  switch (style) {
    case progress_style::none: return {};
    case progress_style::live: {
      auto block = std::make_shared<live_block>(out);
      return [block](const progress_event& e) { (*block)(e); };
    }
    case progress_style::lines: break;
  }
  return [&out](const progress_event& e) {
    if (!e.side_by_side) {
      one_at_a_time(out, e);
    } else if (e.what == progress_event::kind::finished) {
      out << side_by_side_line(e) << std::endl;
    }
  };
}

core::progress_callback progress_printer(std::ostream& out, bool quiet) {
  return progress_printer(out, quiet ? progress_style::none : progress_style::lines);
}

}  // namespace ironbench::cli
