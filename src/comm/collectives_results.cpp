#include "comm/collectives_results.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

#include "core/statistics.hpp"
#include "schema/collective_case.hpp"

namespace ironbench::comm {

json rank_description(int rank, const launch_info& launch, const json& host, const core::device_info& device) {
  return {{"rank", rank},
          {"pid", static_cast<long>(getpid())},
          {"hostname", host.value("hostname", std::string())},
          {"launcher", launch.launcher},
          {"local_rank", launch.local_rank},
          {"local_size", launch.local_size},
          {"device", fmt::format("{} ({})", device.id, device.name)},
          {"host", host}};
}

json settings_json(const sweep_settings& s, int ranks, const std::string& backend, int trials, double timeout_s) {
  return {{"ranks", ranks},
          {"backend", backend},
          {"min_bytes", s.min_bytes},
          {"max_bytes", s.max_bytes},
          {"step_factor", s.factor},
          {"step_bytes", s.increment},
          {"warmup_iterations", s.warmup_iterations},
          {"iterations", s.iterations},
          {"check", s.check},
          {"graph_launches", s.graph_launches},
          {"trials", trials},
          {"timeout_s", timeout_s},
          {"time_statistic", "mean over ranks of each rank's time per iteration (nccl-tests)"}};
}

std::vector<core::case_result> cases_of(const std::vector<std::vector<sweep_row>>& trials, int ranks, int iterations,
                                        int warmup_iterations) {
  std::vector<core::case_result> cases;
  if (trials.empty()) return cases;
  for (std::size_t i = 0; i < trials.front().size(); ++i) {
    const auto& row = trials.front()[i];
    for (const bool in_place : {false, true}) {
      const auto pick = [&](const sweep_row& r) -> const placement_result& {
        return in_place ? r.in_place : r.out_of_place;
      };
      const auto& first = pick(row);
      if (!first.ran && first.skipped.empty()) continue;  // placement not requested
      schema::collective_case_fields f;
      f.collective = to_string(row.c);
      f.dtype = to_string(row.type);
      f.op = reduces(row.c) ? to_string(row.op) : "none";
      f.root = row.root;
      f.size = row.bytes;
      f.in_place = in_place;
      f.ranks = ranks;
      f.skipped = first.ran ? std::string() : first.skipped;
      if (!first.ran) {
        cases.push_back(schema::collective_case(f));
        continue;
      }
      std::vector<double> seconds, busbw, algbw;
      double wrong = 0;
      bool checked = true;
      for (const auto& trial : trials) {
        const auto& p = pick(trial[i]);
        seconds.push_back(p.time_us * 1e-6);
        busbw.push_back(p.busbw_gbs);
        algbw.push_back(p.algbw_gbs);
        if (p.wrong < 0) checked = false;
        wrong += std::max(p.wrong, 0.0);
      }
      core::measurement m;
      m.samples_s = seconds;
      m.batch = static_cast<std::size_t>(iterations);
      m.warmup_reps = static_cast<std::size_t>(warmup_iterations) * trials.size();
      m.total_iterations = static_cast<std::size_t>(iterations + warmup_iterations) * trials.size();
      m.stop = core::stop_reason::max_reps;
      m.time_s = core::summarize(seconds);
      f.timing = m;
      f.count = row.shape.param_count;
      const auto busbw_stats = core::summarize(busbw);
      f.time_us = m.time_s.mean * 1e6;
      f.time_description = "time per iteration, mean over ranks and trials";
      f.algbw_gbs = core::summarize(algbw).mean;
      f.busbw_gbs = busbw_stats.mean;
      if (trials.size() > 1) {
        f.busbw_spread.push_back({"busbw_stdev", busbw_stats.stddev, "GB/s", "sample stdev of busbw over trials"});
        f.busbw_spread.push_back({"busbw_cv", busbw_stats.mean > 0 ? busbw_stats.stddev / busbw_stats.mean : 0, "",
                                  "busbw stdev / mean over trials"});
      }
      f.wrong = checked ? wrong : -1;
      auto c = schema::collective_case(f);
      c.work.bytes_written = row.shape.algorithm_bytes;
      c.notes["bus_factor"] = fmt::format("{:g}", row.shape.bus_factor);
      c.notes["verification"] =
          checked ? "every output element of every rank against its exact value" : "not checked (--check 0)";
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace ironbench::comm
