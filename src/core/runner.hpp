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
#include "core/registry.hpp"
#include "core/result.hpp"

namespace ironbench::core {

struct run_options {
  std::vector<std::string> benchmarks;  ///< empty: the default suite
  std::vector<axis_override> overrides;
  measurement_settings settings;
  const std::atomic<bool>* cancel = nullptr;  ///< set to stop after the current sample
  case_monitor_factory monitor;               ///< watches each case's device (telemetry); may be empty
};

/// One case to run, or to record as skipped when `skip_reason` is set.
struct planned_case {
  const benchmark* bench = nullptr;
  std::shared_ptr<const device_info> device;  ///< shared by the cases of one device
  parameter_set params;
  std::map<std::string, std::string> param_units;  ///< from the axes' units
  std::string skip_reason;
};

/// Most cases one run may plan.
inline constexpr std::size_t max_planned_cases = 100000;

/// The most host memory one planned case needs (cases on the host CPU that are not skipped);
/// nullopt when the plan has none.
[[nodiscard]] std::optional<std::uint64_t> host_memory_needed(const std::vector<planned_case>& plan);

/// Expands benchmarks x devices x sweeps. Throws usage_error for an unknown benchmark, an
/// override that no selected benchmark takes, a malformed axis value, or a case needing more
/// memory than its device has.
[[nodiscard]] std::vector<planned_case> plan_run(const registry& benchmarks, const std::vector<device_info>& devices,
                                                 const run_options& options);

/// Called before (result == nullptr) and after each case.
using progress_callback =
    std::function<void(std::size_t index, std::size_t total, const planned_case& planned, const case_result* result)>;

/// Runs the plan and appends one case_result per planned case to `run.cases`. Errors inside
/// a case make that case `failed`; they do not stop the run. When `options.cancel` is set the
/// run stops after the current case and is marked interrupted.
void execute_plan(const std::vector<planned_case>& plan, const run_options& options, run_result& run,
                  const progress_callback& progress = {});

/// Runs a single planned case (used by execute_plan; exposed for tests). When a monitor
/// watched it and saw a series, `series` receives it.
[[nodiscard]] case_result run_case(const planned_case& planned, const run_options& options, json* series = nullptr);

}  // namespace ironbench::core
