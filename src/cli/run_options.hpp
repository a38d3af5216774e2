// `ironbench run`'s options as typed, shared by the command and an experiment's bench step
// (run_command.cpp), and the run they ask for.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/runner.hpp"
#include "report/run_outputs.hpp"

namespace ironbench::cli {

struct run_arguments {
  std::vector<std::string> benchmarks;
  std::string devices = "all";
  std::vector<std::string> axes;
  report::output_options outputs;
  bool quiet = false;
  bool sequential = false;
  bool estimate_only = false;
  std::string time_limit = "10m", case_time_limit = "auto";
  std::string warmup = "0.1s", min_time, max_time = "3s", min_sample_time = "100us";
  std::string min_reps = "5", max_reps = "1000", target_cv = "0.01", unstable_cv = "0.5";
  int telemetry_interval_ms = 50;
};

/// Adds the benchmarks, --device, --axis, the output options, --quiet, --sequential, the time
/// limits, --estimate and the measurement settings (--warmup ... --telemetry-interval).
void add_run_options(CLI::App& command, run_arguments& arguments);

/// What the arguments ask for, checked (usage_error naming the option otherwise): the
/// measurement settings, the schedule, the case time limit and the axis overrides.
[[nodiscard]] core::run_options run_options_of(const run_arguments& arguments);

}  // namespace ironbench::cli
