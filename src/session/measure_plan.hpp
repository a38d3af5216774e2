// A planned run measured on this host, as `ironbench run` and an experiment's bench step do it:
// the cases executed (core::execute_plan) with their monitors (case_monitors.hpp), and the
// node's findings from its counters before and after (doctor).
#pragma once

#include <atomic>
#include <chrono>
#include <vector>

#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/runner.hpp"
#include "session/live_host.hpp"

namespace ironbench::session {

/// Measures `plan` on `devices` of `host` into `run`: its devices, settings (the measurement
/// settings and the host's device notes), cases and findings; each case's monitors sample every
/// `telemetry_interval`; no case starts once `cancel` is set (core::execute_plan).
core::plan_execution measure_plan(const live_host& host, const std::vector<core::device_info>& devices,
                                  core::run_options options, const std::vector<core::planned_case>& plan,
                                  const std::atomic<bool>& cancel, std::chrono::milliseconds telemetry_interval,
                                  const core::progress_callback& progress, core::run_result& run);

}  // namespace ironbench::session
