#include "session/measure_plan.hpp"

#include "core/result_json.hpp"
#include "doctor/examine.hpp"
#include "doctor/live_facts.hpp"
#include "session/case_monitors.hpp"

namespace ironbench::session {

core::plan_execution measure_plan(const live_host& host, const std::vector<core::device_info>& devices,
                                  core::run_options options, const std::vector<core::planned_case>& plan,
                                  const std::atomic<bool>& cancel, std::chrono::milliseconds telemetry_interval,
                                  const core::progress_callback& progress, core::run_result& run) {
  run.devices = devices;
  run.settings = core::to_json(options.settings);
  run.settings["device_notes"] = host.devices.notes;
  options.cancel = &cancel;
  options.monitor = case_monitors(telemetry_interval);
  const auto before = doctor::live_host_counters();
  auto execution = core::execute_plan(plan, options, run, progress);
  run.findings = doctor::run_findings(run, before, core::host_memory_needed(plan));
  return execution;
}

}  // namespace ironbench::session
