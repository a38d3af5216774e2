// The provenance every run starts with: which ironbench measured (tool), how it was asked
// (argv), when (start and end time, UTC) and where (the host fingerprint, the devices).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "session/live_host.hpp"

namespace ironbench::session {

/// A run holding its provenance and nothing measured yet: tool, argv, start time, host.
[[nodiscard]] core::run_result start_run(const std::vector<std::string>& argv, const live_host& host,
                                         std::chrono::system_clock::time_point start);

/// Sets the end time to now.
void finish_run(core::run_result& run);

/// finish_run(), then record_hardware_errors(run, host).
void finish_run(core::run_result& run, const live_host& host);

/// Reads `host`'s hardware error counters again and records them against those read when it
/// was detected: run.host["hardware_errors"] = {"before", "after", "rises", "resets", "xids"},
/// and a `hardware_errors` finding per device whose counters rose (doctor/hardware_error_checks.hpp)
/// added to run.findings. Nothing when `host` watches none.
void record_hardware_errors(core::run_result& run, const live_host& host);

/// The run a multi-rank workload (collectives, tp_infer) writes on rank 0: start_run() with
/// every rank's description under host.ranks (`rank_descriptions` are the JSON texts each
/// rank contributed, comm::rank_description), the measured device, and the end time now.
[[nodiscard]] core::run_result rank0_run(const std::vector<std::string>& argv,
                                         std::chrono::system_clock::time_point start, const live_host& host,
                                         const std::vector<std::string>& rank_descriptions,
                                         const core::device_info& measured);

}  // namespace ironbench::session
