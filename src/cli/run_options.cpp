#include "cli/run_options.hpp"

#include <algorithm>

#include "cli/option_groups.hpp"
#include "core/axis.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ironbench::cli {

void add_run_options(CLI::App& command, run_arguments& a) {
  command.add_option("benchmarks", a.benchmarks,
                     "Benchmarks to run (default: every one, each its first look; see `ironbench list`)");
  command.add_option("-d,--device", a.devices, "Devices: all, cpu, cuda, cuda:0, ... (comma-separated)")
      ->capture_default_str();
  command.add_option("-a,--axis", a.axes,
                     "Override an axis: [BENCH:]NAME=VALUES, e.g. M=4096,8192 or size=1M:8G:x2 or N[pow2]=10:20");
  add_output_options(command, a.outputs);
  add_quiet_flag(command, a.quiet);
  command.add_flag("--sequential", a.sequential,
                   "One case at a time in order, device after device (default: the GPUs side by side, then the CPU)");
  command
      .add_option("--time-limit", a.time_limit,
                  "Refuse a run whose estimate is longer than this (e.g. 10m, 1h; 0: no limit)")
      ->capture_default_str();
  command
      .add_option("--case-time-limit", a.case_time_limit,
                  "Abandon a case (its device as hung) after this long; auto: 3 x its estimate + 60 s")
      ->capture_default_str();
  command.add_flag("--estimate", a.estimate_only,
                   "Print the plan's cases per device and its time estimate, run nothing");
  command.add_option("--warmup", a.warmup, "Warm-up time per case (e.g. 0.1s, 200ms)")->capture_default_str();
  command.add_option("--min-time", a.min_time,
                     "Measure each case at least this long (default 0.5s, or --max-time if shorter)");
  command.add_option("--max-time", a.max_time, "Stop measuring a case after this long")->capture_default_str();
  command.add_option("--min-reps", a.min_reps, "Fewest timed samples per case")->capture_default_str();
  command.add_option("--max-reps", a.max_reps, "Most timed samples per case")->capture_default_str();
  command.add_option("--target-cv", a.target_cv, "Stop once stddev/mean of the samples is at most this")
      ->capture_default_str();
  command
      .add_option("--unstable-cv", a.unstable_cv,
                  "Mark a valid case unstable when the robust CV of its samples, (p90-p10)/(2.5631 median), is above "
                  "this (0: never)")
      ->capture_default_str();
  command.add_option("--min-sample-time", a.min_sample_time, "Batch repetitions so one sample lasts at least this")
      ->capture_default_str();
  command
      .add_option("--telemetry-interval", a.telemetry_interval_ms,
                  "GPU sensor sampling interval during each case, in ms")
      ->capture_default_str()
      ->check(CLI::Range(5, 10000));
}

namespace {

core::measurement_settings parse_settings(const run_arguments& a) {
  core::measurement_settings s;
  s.warmup_s = parse_duration_s(a.warmup, "--warmup");
  // Unless given, the minimum yields to a shorter --max-time: `--max-time 0.2s` alone works.
  s.min_time_s = a.min_time.empty() ? std::min(0.5, parse_duration_s(a.max_time, "--max-time"))
                                    : parse_duration_s(a.min_time, "--min-time");
  s.max_time_s = parse_duration_s(a.max_time, "--max-time");
  s.min_sample_s = parse_duration_s(a.min_sample_time, "--min-sample-time");
  const auto min_reps = parse_integer(a.min_reps, "--min-reps");
  const auto max_reps = parse_integer(a.max_reps, "--max-reps");
  if (min_reps < 1) throw usage_error("--min-reps must be at least 1");
  if (max_reps < min_reps) throw usage_error("--max-reps must be at least --min-reps");
  s.min_reps = static_cast<std::size_t>(min_reps);
  s.max_reps = static_cast<std::size_t>(max_reps);
  s.target_cv = parse_number(a.target_cv, "--target-cv");
  if (s.target_cv < 0) throw usage_error("--target-cv must not be negative");
  s.unstable_cv = parse_number(a.unstable_cv, "--unstable-cv");
  if (s.unstable_cv < 0) throw usage_error("--unstable-cv must not be negative");
  if (s.max_time_s < s.min_time_s) throw usage_error("--max-time must be at least --min-time");
  return s;
}

}  // namespace

core::run_options run_options_of(const run_arguments& a) {
  core::run_options options;
  options.benchmarks = a.benchmarks;
  options.settings = parse_settings(a);
  options.schedule = a.sequential ? core::schedule_mode::sequential : core::schedule_mode::concurrent;
  if (a.case_time_limit != "auto") {
    options.case_time_limit_s = parse_duration_s(a.case_time_limit, "--case-time-limit");
    if (options.case_time_limit_s <= 0) throw usage_error("--case-time-limit must be above 0 (or auto)");
  }
  for (const auto& text : a.axes) options.overrides.push_back(core::parse_axis_override(text));
  return options;
}

}  // namespace ironbench::cli
