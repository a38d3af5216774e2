// The run a multi-rank command (collectives, tp_infer) writes on rank 0: provenance, rank 0's
// host fingerprint with every rank's description under host.ranks, and the measured device.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/live_host.hpp"
#include "core/result.hpp"

namespace ironbench::cli {

/// A run without cases or settings: tool, argv, start and end time (now), host, devices.
/// `rank_descriptions` are the JSON texts every rank contributed (comm::rank_description).
[[nodiscard]] core::run_result rank0_run(const invocation& call, std::chrono::system_clock::time_point start,
                                         const live_host& host, const std::vector<std::string>& rank_descriptions,
                                         const core::device_info& measured);

}  // namespace ironbench::cli
