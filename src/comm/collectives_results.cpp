#include "comm/collectives_results.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

#include "core/statistics.hpp"

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
      core::case_result c;
      c.benchmark = "collectives";
      c.device = fmt::format("{} ranks", ranks);
      c.params.set("collective", std::string(to_string(row.c)));
      c.params.set("dtype", std::string(to_string(row.type)));
      c.params.set("op", std::string(reduces(row.c) ? to_string(row.op) : "none"));
      c.params.set("root", std::int64_t{row.root});
      c.params.set("size", static_cast<std::int64_t>(row.bytes));
      c.params.set("placement", std::string(in_place ? "in-place" : "out-of-place"));
      c.params.set("ranks", std::int64_t{ranks});
      c.param_units["size"] = "B";
      if (!first.ran) {
        c.status = core::case_status::skipped;
        c.reason = first.skipped;
        cases.push_back(std::move(c));
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
      c.timing = m;
      c.work.bytes_written = row.shape.algorithm_bytes;
      const auto busbw_stats = core::summarize(busbw);
      const auto algbw_stats = core::summarize(algbw);
      c.metrics.push_back({"time_us", m.time_s.mean * 1e6, "us", "time per iteration, mean over ranks and trials"});
      c.metrics.push_back({"algbw", algbw_stats.mean, "GB/s", "algorithm bytes / time (nccl-tests algbw)"});
      c.metrics.push_back({"busbw", busbw_stats.mean, "GB/s", "algbw x bus factor (nccl-tests busbw)"});
      if (trials.size() > 1) {
        c.metrics.push_back({"busbw_stdev", busbw_stats.stddev, "GB/s", "sample stdev of busbw over trials"});
        c.metrics.push_back({"busbw_cv", busbw_stats.mean > 0 ? busbw_stats.stddev / busbw_stats.mean : 0, "",
                             "busbw stdev / mean over trials"});
      }
      c.metrics.push_back({"wrong", checked ? wrong : -1, "elements", "wrong output elements over every rank (-1: not checked)"});
      c.notes["bus_factor"] = fmt::format("{:g}", row.shape.bus_factor);
      c.notes["count"] = std::to_string(row.shape.param_count);
      if (!checked) c.notes["verification"] = "not checked (--check 0)";
      if (checked) c.notes["verification"] = "every output element of every rank against its exact value";
      if (wrong > 0) {
        c.status = core::case_status::invalid;
        c.reason = fmt::format("#wrong = {:.0f}", wrong);
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace ironbench::comm
