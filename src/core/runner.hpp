// Planning and running a sweep: which cases, on which devices, in what order.
// Planning checks everything the user asked for before any case runs, so that a typo or an
// impossible size is a usage error within milliseconds, not after an hour of measuring.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/axis.hpp"
#include "core/case_monitor.hpp"
#include "core/device_info.hpp"
#include "core/measurement.hpp"
#include "core/planned_case.hpp"
#include "core/progress_event.hpp"
#include "core/registry.hpp"
#include "core/result.hpp"
#include "core/run_schedule.hpp"

namespace ironbench::core {

struct run_options {
  std::vector<std::string> benchmarks;  ///< empty: the default suite
  std::vector<axis_override> overrides;
  measurement_settings settings;
  const std::atomic<bool>* cancel = nullptr;  ///< set to stop after the current sample
  case_monitor_factory monitor;               ///< watches each case's device (telemetry); may be empty
  /// sequential: one case at a time in the plan's order; concurrent: GPUs side by side
  /// (run_schedule.hpp), what `ironbench run` does unless --sequential.
  schedule_mode schedule = schedule_mode::sequential;
  /// A case that has not ended this many seconds after it started is abandoned as hung: it is
  /// recorded as failed, its devices run nothing more, the others go on. 0: from its estimate
  /// (case_time_limit_s in run_estimate.hpp).
  double case_time_limit_s = 0;
  /// After `cancel` is set, a case that has not stopped within this many seconds is abandoned
  /// as hung (an interrupt does not wait for a hung device's time limit).
  double interrupt_grace_s = 10;
};

/// Most cases one run may plan.
inline constexpr std::size_t max_planned_cases = 100000;

/// The most host memory one planned case needs (cases on the host CPU that are not skipped);
/// nullopt when the plan has none.
[[nodiscard]] std::optional<std::uint64_t> host_memory_needed(const std::vector<planned_case>& plan);

/// Expands benchmarks x devices x sweeps; where none of a benchmark's axes is overridden on a
/// device, only the cases of its first look (benchmark::in_first_look). Throws usage_error for an unknown benchmark, an
/// override that no selected benchmark takes, a malformed axis value, or a case needing more
/// memory than its device has.
[[nodiscard]] std::vector<planned_case> plan_run(const registry& benchmarks, const std::vector<device_info>& devices,
                                                 const run_options& options);

/// How a plan's execution ended, beyond its results.
struct plan_execution {
  /// Devices lost to a case that did not end within its time limit, in the order they hung.
  std::vector<std::string> lost_devices;
  /// Whether the threads of hung cases still run: the process should end without waiting for
  /// them (std::_Exit once its outputs are written), as a CUDA call that never returns would
  /// also block the runtime's teardown at exit.
  [[nodiscard]] bool left_running() const { return !lost_devices.empty(); }
};

/// Runs the plan under `options.schedule` and appends one case_result per planned case to
/// `run.cases`, in plan order, each with when it ran and beside which devices
/// (case_result::schedule), and run.settings["schedule"] (the stages, the estimate, the wall
/// time, the devices lost). Errors inside a case make that case `failed`; they do not stop the
/// run. A case still running after its time limit is recorded as failed and left to its
/// thread; the cases left on its devices are recorded as skipped, the other devices go on.
/// When `options.cancel` is set no case starts any more, those running stop after their
/// current sample, and the run is marked interrupted. The benchmarks and `options.cancel` must
/// outlive the threads of hung cases (plan_execution::left_running).
plan_execution execute_plan(const std::vector<planned_case>& plan, const run_options& options, run_result& run,
                            const progress_callback& progress = {});

/// Runs a single planned case (used by execute_plan; exposed for tests). When a monitor
/// watched it and saw a series, `series` receives it.
[[nodiscard]] case_result run_case(const planned_case& planned, const run_options& options, json* series = nullptr);

}  // namespace ironbench::core
