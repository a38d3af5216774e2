// ironbench run [BENCH...]: plan, measure, verify, report and save.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "benchmarks/builtin.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/experiment_workloads.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "cli/progress_printer.hpp"
#include "core/error.hpp"
#include "core/result_json.hpp"
#include "core/run_estimate.hpp"
#include "core/runner.hpp"
#include "core/units.hpp"
#include "doctor/examine.hpp"
#include "doctor/live_facts.hpp"
#include "report/output.hpp"
#include "session/case_monitors.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {
namespace {

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

void add_options(CLI::App& command, run_arguments& a) {
  command.add_option("benchmarks", a.benchmarks,
                     "Benchmarks to run (default: every one, each its first look; see `ironbench list`)");
  command.add_option("-d,--device", a.devices, "Devices: all, cpu, cuda, cuda:0, ... (comma-separated)")
      ->capture_default_str();
  command.add_option("-a,--axis", a.axes,
                     "Override an axis: [BENCH:]NAME=VALUES, e.g. M=4096,8192 or size=1M:8G:x2 or N[pow2]=10:20");
  add_output_options(command, a.outputs);
  command.add_flag("-q,--quiet", a.quiet, "No progress lines");
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

// What the arguments ask for, checked: the measurement settings and the run options.
core::run_options options_of(const run_arguments& a) {
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

// Progress lines, or one line per device redrawn in place when `out` is standard error on a
// terminal.
progress_style style_of(const run_arguments& a, const std::ostream& out) {
  if (a.quiet) return progress_style::none;
  return &out == &std::cerr && isatty(STDERR_FILENO) != 0 ? progress_style::live : progress_style::lines;
}

// Measures `plan` into `run` (devices, settings, cases), stopping early once `cancel` is set.
core::plan_execution measure(const run_arguments& a, const session::live_host& host,
                             const std::vector<core::device_info>& devices, core::run_options options,
                             const std::vector<core::planned_case>& plan, const std::atomic<bool>& cancel,
                             core::run_result& run, std::ostream& progress) {
  run.devices = devices;
  run.settings = core::to_json(options.settings);
  run.settings["device_notes"] = host.devices.notes;
  for (const auto& note : host.devices.notes) {
    if (!a.quiet) progress << "note: " << note << '\n';
  }
  options.cancel = &cancel;
  options.monitor = session::case_monitors(std::chrono::milliseconds(a.telemetry_interval_ms));
  const auto before = doctor::live_host_counters();
  auto execution = core::execute_plan(plan, options, run, progress_printer(progress, style_of(a, progress)));
  run.findings = doctor::run_findings(run, before, core::host_memory_needed(plan));
  return execution;
}

// --estimate: the plan's cases per device and its time estimate.
void print_estimate(const core::run_estimate& estimate, std::ostream& out) {
  out << "estimate: " << core::describe(estimate) << '\n';
  for (const auto& s : estimate.stages) {
    out << fmt::format("  {:<10} {:>4} cases  {:>12} to {:<12} {}\n", s.stage, s.cases,
                       core::format_wall_time(s.start_s), core::format_wall_time(s.end_s), s.how);
  }
  for (const auto& d : estimate.devices) {
    out << fmt::format("  {:<10} {:>4} cases  ({} skipped here)  busy {}, done after {}\n", d.device, d.cases,
                       d.skipped, core::format_wall_time(d.busy_s), core::format_wall_time(d.end_s));
  }
}

int execute(const run_arguments& a, const invocation& call) {
  const auto options = options_of(a);
  const auto targets = report::parse_targets(a.outputs);
  const auto host = session::detect_live_host();
  const auto devices = device::select_devices(host.devices, a.devices);
  core::registry registry;
  benchmarks::register_builtin_benchmarks(registry);
  const auto plan = core::plan_run(registry, devices, options);
  const auto estimate = core::estimate_run(plan, options);
  if (a.estimate_only) {
    print_estimate(estimate, std::cout);
    return exit_ok;
  }
  core::check_time_limit(estimate, parse_duration_s(a.time_limit, "--time-limit"));
  report::prepare_results_dir(a.outputs);
  if (!a.quiet) std::cerr << "plan: " << core::describe(estimate) << '\n';

  const auto start = std::chrono::system_clock::now();
  auto run = session::start_run(call.argv, host, start);
  const auto execution = measure(a, host, devices, options, plan, install_interrupt_flag(), run, std::cerr);
  session::finish_run(run, host);

  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout,
                            [&](std::ostream& console) { report::write_console(run, console); });
  const int code = exit_code_of(run);
  if (execution.left_running()) {
    // A hung case's thread may never return, nor may the GPU runtime's teardown: what was
    // measured is written; end here.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  }
  return code;
}

}  // namespace

experiment::in_process_workload bench_workload() {
  const auto parsed = [](const std::vector<std::string>& arguments) {
    return parse_step<run_arguments>(arguments, "run", add_options);
  };
  experiment::in_process_workload w;
  w.kind = "bench";
  w.check = [parsed](const std::vector<std::string>& arguments) {
    const auto a = parsed(arguments);
    core::registry registry;
    benchmarks::register_builtin_benchmarks(registry);
    const auto host = session::detect_live_host();
    (void)core::plan_run(registry, device::select_devices(host.devices, a->devices), options_of(*a));
  };
  w.measure = [parsed](const std::vector<std::string>& arguments, const std::atomic<bool>& cancel, std::ostream& log) {
    const auto a = parsed(arguments);
    const auto options = options_of(*a);
    const auto host = session::detect_live_host();
    const auto devices = device::select_devices(host.devices, a->devices);
    core::registry registry;
    benchmarks::register_builtin_benchmarks(registry);
    const auto plan = core::plan_run(registry, devices, options);
    core::run_result run;
    measure(*a, host, devices, options, plan, cancel, run, log);
    report::write_console(run, log);
    return run;
  };
  return w;
}

command_action add_run_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand(
      "run", "Run benchmarks (default: the default suite on every device found, the GPUs side by side)");
  auto arguments = std::make_shared<run_arguments>();
  add_options(*command, *arguments);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
