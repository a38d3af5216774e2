#include "session/run_setup.hpp"

#include "core/utc_time.hpp"
#include "doctor/examine.hpp"
#include "doctor/hardware_error_checks.hpp"
#include "session/build_description.hpp"

namespace ironbench::session {

core::run_result start_run(const std::vector<std::string>& argv, const live_host& host,
                           std::chrono::system_clock::time_point start) {
  core::run_result run;
  run.tool = build_description();
  run.argv = argv;
  run.start_time = iso8601_utc(start);
  run.host = host_json(host.fingerprint);
  return run;
}

void finish_run(core::run_result& run) { run.end_time = iso8601_utc_now(); }

void finish_run(core::run_result& run, const live_host& host) {
  finish_run(run);
  record_hardware_errors(run, host);
}

void record_hardware_errors(core::run_result& run, const live_host& host) {
  if (!host.hardware_errors) return;
  const auto after = host.hardware_errors->read();
  const auto delta = telemetry::delta_between(host.hardware_errors_before, after);
  auto record = telemetry::to_json(delta);
  record["before"] = telemetry::to_json(host.hardware_errors_before);
  record["after"] = telemetry::to_json(after);
  run.host["hardware_errors"] = std::move(record);
  if (!run.findings.is_array()) run.findings = json::array();
  for (auto f : doctor::hardware_error_findings(delta)) {
    f.check = "hardware_errors";
    run.findings.push_back(doctor::to_json(f));
  }
}

core::run_result rank0_run(const std::vector<std::string>& argv, std::chrono::system_clock::time_point start,
                           const live_host& host, const std::vector<std::string>& rank_descriptions,
                           const core::device_info& measured) {
  auto run = start_run(argv, host, start);
  finish_run(run);
  run.host["ranks"] = json::array();
  for (const auto& text : rank_descriptions) run.host["ranks"].push_back(json::parse(text));
  run.devices = {measured};
  run.findings = doctor::rank0_run_findings(run);
  record_hardware_errors(run, host);
  return run;
}

}  // namespace ironbench::session
