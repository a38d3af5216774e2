// How long a planned run takes at most, before it starts: each case's cost model
// (case_cost.hpp) under the run's measurement settings, through the run's schedule
// (run_schedule.hpp) simulated. The --time-limit check, the progress lines' times left and
// each case's time limit (a hung device) come from here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_schedule.hpp"
#include "core/runner.hpp"

namespace ironbench::core {

/// Seconds one planned case takes at most (a case skipped at planning: none).
[[nodiscard]] double estimated_seconds(const planned_case& planned, const measurement_settings& settings);

/// The time limit of a case estimated at `estimate_s`: `fixed_limit_s` when positive, else
/// 3 x the estimate + 60 s (a case's model may be off by a factor of two on a slow host or
/// library; a hung device is named within minutes).
[[nodiscard]] double case_time_limit_s(double estimate_s, double fixed_limit_s);

/// When each of `dispatcher`'s running and pending cases ends, by its rules, if each takes
/// `seconds[position]` from when it starts (a running case: from `now_s`). Indexed by
/// position; -1 for cases neither running nor pending, and for those that never start (they
/// need a lost device).
[[nodiscard]] std::vector<double> simulate_ends(case_dispatcher dispatcher, const std::vector<double>& seconds,
                                                double now_s);

/// One device's share of the estimate: the cases it drives as its own.
struct device_estimate {
  std::string device;
  std::size_t cases = 0;    ///< planned cases, skipped ones included
  std::size_t skipped = 0;  ///< skipped at planning (unsupported here)
  double busy_s = 0;        ///< the sum of its cases' estimates
  double end_s = 0;         ///< when its last case ends, from the run's start
};

/// One stage of a concurrent run (a sequential run has one, "sequential").
struct stage_estimate {
  std::string stage;
  std::string how;  ///< describe(run_stage)
  std::size_t cases = 0;
  double start_s = 0;
  double end_s = 0;
};

struct run_estimate {
  schedule_mode mode = schedule_mode::sequential;
  double total_s = 0;                    ///< when the last case ends
  std::vector<double> case_s;            ///< each planned case's estimate, by plan index
  std::vector<device_estimate> devices;  ///< in the order the plan first names them
  std::vector<stage_estimate> stages;    ///< the stages with cases, in order
};

/// The estimate of `plan` under `options` (its schedule and measurement settings).
[[nodiscard]] run_estimate estimate_run(const std::vector<planned_case>& plan, const run_options& options);

/// "1 h 2 min", "3 min 5 s", "42 s", "0.4 s": a wall time as the progress lines and
/// messages show it.
[[nodiscard]] std::string format_wall_time(double seconds);

/// One line for the console before a run starts: "61 cases, at most about 2 min 5 s: cuda:0
/// 46 cases (1 min 27 s) side by side with cuda:1 ..., then cpu 15 cases (38 s)".
[[nodiscard]] std::string describe(const run_estimate& estimate);

/// Throws usage_error when `estimate` exceeds `limit_s` (0: no limit), saying by how much,
/// which device takes longest and how to go on (narrow the run, or a larger --time-limit).
void check_time_limit(const run_estimate& estimate, double limit_s);

}  // namespace ironbench::core
