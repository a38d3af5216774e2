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
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/run_estimate.hpp"
#include "core/runner.hpp"
#include "core/units.hpp"
#include "report/output.hpp"
#include "session/live_host.hpp"
#include "session/measure_plan.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {
namespace {

// Progress lines, or one line per device redrawn in place when `out` is standard error on a
// terminal.
progress_style style_of(const run_arguments& a, const std::ostream& out) {
  if (a.quiet) return progress_style::none;
  return &out == &std::cerr && isatty(STDERR_FILENO) != 0 ? progress_style::live : progress_style::lines;
}

// Measures `plan` into `run` (session::measure_plan), the host's device notes first on
// `progress` unless quiet.
core::plan_execution measure(const run_arguments& a, const session::live_host& host,
                             const std::vector<core::device_info>& devices, const core::run_options& options,
                             const std::vector<core::planned_case>& plan, const std::atomic<bool>& cancel,
                             core::run_result& run, std::ostream& progress) {
  for (const auto& note : host.devices.notes) {
    if (!a.quiet) progress << "note: " << note << '\n';
  }
  return session::measure_plan(host, devices, options, plan, cancel, std::chrono::milliseconds(a.telemetry_interval_ms),
                               progress_printer(progress, style_of(a, progress)), run);
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
  const auto options = run_options_of(a);
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
    return parse_step<run_arguments>(arguments, "run", add_run_options);
  };
  experiment::in_process_workload w;
  w.kind = "bench";
  w.check = [parsed](const std::vector<std::string>& arguments) {
    const auto a = parsed(arguments);
    core::registry registry;
    benchmarks::register_builtin_benchmarks(registry);
    const auto host = session::detect_live_host();
    (void)core::plan_run(registry, device::select_devices(host.devices, a->devices), run_options_of(*a));
  };
  w.measure = [parsed](const std::vector<std::string>& arguments, const std::atomic<bool>& cancel, std::ostream& log) {
    const auto a = parsed(arguments);
    const auto options = run_options_of(*a);
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
  add_run_options(*command, *arguments);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
