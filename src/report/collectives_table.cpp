#include "report/collectives_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/statistics.hpp"
#include "schema/collective_names.hpp"

namespace ironbench::report {
namespace {

std::string placement_columns(const schema::placement_result& p) {
  if (!p.ran) return fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "n/a", "n/a", "n/a", "n/a");
  const std::string time = p.time_us >= 1e4 ? fmt::format("{:7.0f}", p.time_us) : fmt::format("{:7.2f}", p.time_us);
  const std::string wrong = p.wrong < 0 ? "N/A" : fmt::format("{:.0f}", p.wrong);
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", time, p.algbw_gbs, p.busbw_gbs, wrong);
}

}  // namespace

void write_collectives_table(std::ostream& out, const std::vector<schema::sweep_row>& rows) {
  fmt::print(out, "#\n#{:>62}{:>35}\n", "out-of-place", "in-place");
  fmt::print(out, "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
             "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
             "#wrong");
  fmt::print(out, "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
             "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  schema::collective current = rows.empty() ? schema::collective::all_reduce : rows.front().c;
  bool first = true;
  for (const auto& row : rows) {
    if (first || row.c != current) fmt::print(out, "# {}\n", schema::to_string(row.c));
    first = false;
    current = row.c;
    // As nccl-tests: the larger buffer's bytes, and the count passed to the library.
    fmt::print(out, "{:>12}  {:>12}  {:>8}  {:>6}  {:>6}{}{}\n", row.shape.count * schema::element_size(row.type),
               row.shape.param_count, schema::nccl_tests_type_name(row.type),
               schema::reduces(row.c) ? schema::to_string(row.op) : "none", row.root,
               placement_columns(row.out_of_place), placement_columns(row.in_place));
  }
  const auto s = schema::summarize(rows);
  fmt::print(out, "# Out of bounds values : {:.0f} {}\n", s.wrong, s.wrong == 0 ? "OK" : "FAILED");
  fmt::print(out, "# Avg bus bandwidth    : {:g}\n", s.average_gbs);
  fmt::print(out, "# Avg bus bandwidth (sizes >= 1 MiB) : {:g}\n", s.average_from_1mib_gbs);
  fmt::print(out, "# Peak bus bandwidth   : {:g} at {} B\n#\n", s.peak_gbs, s.peak_bytes);
}

std::vector<trial_statistics> trial_statistics_of(const std::vector<std::vector<schema::sweep_row>>& trials) {
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
      stats.push_back(
          {row.c, row.bytes, in_place ? "in-place" : "out-of-place", b.mean, b.stddev, b.cv, t.mean, t.stddev});
    }
  }
  return stats;
}

void write_trial_table(std::ostream& out, const std::vector<trial_statistics>& stats, std::size_t trials) {
  fmt::print(out, "# {} trials: busbw mean, sample stdev and CV per size\n", trials);
  fmt::print(out, "#{:>15}  {:>12}  {:>12}  {:>10}  {:>10}  {:>7}  {:>10}  {:>9}\n", "collective", "size (B)",
             "placement", "busbw GB/s", "stdev", "CV %", "time (us)", "stdev");
  for (const auto& s : stats) {
    fmt::print(out, "{:>16}  {:>12}  {:>12}  {:10.2f}  {:10.3f}  {:7.2f}  {:10.2f}  {:9.2f}\n", schema::to_string(s.c),
               s.bytes, s.placement, s.busbw_mean_gbs, s.busbw_stdev_gbs, 100 * s.busbw_cv, s.time_mean_us,
               s.time_stdev_us);
  }
}

void write_collectives_console(std::ostream& out, const collectives_header& h, const core::run_result& run,
                               const std::vector<std::vector<schema::sweep_row>>& trials) {
  out << fmt::format(
      "# ironbench collectives: {} ranks, {}, minBytes {} maxBytes {} step: {} warmup iters: {} "
      "iters: {} validation: {}\n",
      h.ranks, h.backend, h.min_bytes, h.max_bytes,
      h.step_bytes > 0 ? fmt::format("{}(bytes)", h.step_bytes) : fmt::format("{:g}(factor)", h.step_factor),
      h.warmup_iterations, h.iterations, h.check ? 1 : 0);
  for (const auto& r : run.host["ranks"]) {
    out << fmt::format("#  Rank {:>3} Pid {:>7} on {:>12} device {}\n", r.value("rank", 0), r.value("pid", 0),
                       r.value("hostname", std::string("?")), r.value("device", std::string("?")));
  }
  for (std::size_t t = 0; t < trials.size(); ++t) {
    if (trials.size() > 1) out << fmt::format("# trial {} of {}\n", t + 1, trials.size());
    write_collectives_table(out, trials[t]);
  }
  if (trials.size() > 1) write_trial_table(out, trial_statistics_of(trials), trials.size());
  out << fmt::format("run {}: {}\n", core::to_string(run.status),
                     run.status_reason.empty() ? "every result checked" : run.status_reason);
}

}  // namespace ironbench::report
