#include "report/collectives_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/statistics.hpp"

namespace ironbench::report {
namespace {

std::string placement_columns(const comm::placement_result& p) {
  if (!p.ran) return fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "n/a", "n/a", "n/a", "n/a");
  const std::string time = p.time_us >= 1e4 ? fmt::format("{:7.0f}", p.time_us) : fmt::format("{:7.2f}", p.time_us);
  const std::string wrong = p.wrong < 0 ? "N/A" : fmt::format("{:.0f}", p.wrong);
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", time, p.algbw_gbs, p.busbw_gbs, wrong);
}

}  // namespace

const char* nccl_tests_type_name(comm::element_type type) {
  switch (type) {
    case comm::element_type::int8: return "int8";
    case comm::element_type::int32: return "int32";
    case comm::element_type::fp16: return "half";
    case comm::element_type::bf16: return "bfloat16";
    case comm::element_type::fp32: return "float";
    case comm::element_type::fp64: return "double";
  }
  return "unknown";
}

void write_collectives_table(std::ostream& out, const std::vector<comm::sweep_row>& rows) {
  fmt::print(out, "#\n#{:>62}{:>35}\n", "out-of-place", "in-place");
  fmt::print(out, "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n", "size",
             "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  fmt::print(out, "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n", "(B)",
             "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  comm::collective current = rows.empty() ? comm::collective::all_reduce : rows.front().c;
  bool first = true;
  for (const auto& row : rows) {
    if (first || row.c != current) fmt::print(out, "# {}\n", comm::to_string(row.c));
    first = false;
    current = row.c;
    // As nccl-tests: the larger buffer's bytes, and the count passed to the library.
    fmt::print(out, "{:>12}  {:>12}  {:>8}  {:>6}  {:>6}{}{}\n", row.shape.count * comm::element_size(row.type),
               row.shape.param_count,
               nccl_tests_type_name(row.type), comm::reduces(row.c) ? comm::to_string(row.op) : "none", row.root,
               placement_columns(row.out_of_place), placement_columns(row.in_place));
  }
  const auto s = comm::summarize(rows);
  fmt::print(out, "# Out of bounds values : {:.0f} {}\n", s.wrong, s.wrong == 0 ? "OK" : "FAILED");
  fmt::print(out, "# Avg bus bandwidth    : {:g}\n", s.average_gbs);
  fmt::print(out, "# Avg bus bandwidth (sizes >= 1 MiB) : {:g}\n", s.average_from_1mib_gbs);
  fmt::print(out, "# Peak bus bandwidth   : {:g} at {} B\n#\n", s.peak_gbs, s.peak_bytes);
}

std::vector<trial_statistics> trial_statistics_of(const std::vector<std::vector<comm::sweep_row>>& trials) {
  std::vector<trial_statistics> stats;
  if (trials.empty()) return stats;
  for (std::size_t i = 0; i < trials.front().size(); ++i) {
    const auto& row = trials.front()[i];
    for (const bool in_place : {false, true}) {
      std::vector<double> busbw, time;
      for (const auto& trial : trials) {
        if (i >= trial.size()) continue;
        const auto& p = in_place ? trial[i].in_place : trial[i].out_of_place;
        if (!p.ran) continue;
        busbw.push_back(p.busbw_gbs);
        time.push_back(p.time_us);
      }
      if (busbw.empty()) continue;
      const auto b = core::summarize(busbw);
      const auto t = core::summarize(time);
      stats.push_back({row.c, row.bytes, in_place ? "in-place" : "out-of-place", b.mean, b.stddev, b.cv, t.mean,
                       t.stddev});
    }
  }
  return stats;
}

void write_trial_table(std::ostream& out, const std::vector<trial_statistics>& stats, std::size_t trials) {
  fmt::print(out, "# {} trials: busbw mean, sample stdev and CV per size\n", trials);
  fmt::print(out, "#{:>15}  {:>12}  {:>12}  {:>10}  {:>10}  {:>7}  {:>10}  {:>9}\n", "collective", "size (B)",
             "placement", "busbw GB/s", "stdev", "CV %", "time (us)", "stdev");
  for (const auto& s : stats) {
    fmt::print(out, "{:>16}  {:>12}  {:>12}  {:10.2f}  {:10.3f}  {:7.2f}  {:10.2f}  {:9.2f}\n", comm::to_string(s.c),
               s.bytes, s.placement, s.busbw_mean_gbs, s.busbw_stdev_gbs, 100 * s.busbw_cv, s.time_mean_us,
               s.time_stdev_us);
  }
}

}  // namespace ironbench::report
