// A collectives sweep in ironbench's result model, so that it is stored, compared and
// reported like every other run: one case per collective, size, type, operator and placement.
#pragma once

#include <vector>

#include "comm/collective_sweep.hpp"
#include "comm/launch_environment.hpp"
#include "core/device_info.hpp"
#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::comm {

/// One rank's identity for the fingerprint: rank, pid, hostname, launcher, local rank, the
/// device it measured and its whole host fingerprint.
[[nodiscard]] json rank_description(int rank, const launch_info& launch, const json& host,
                                    const core::device_info& device);

/// The sweep settings as stored with the run.
[[nodiscard]] json settings_json(const sweep_settings& settings, int ranks, const std::string& backend, int trials,
                                 double timeout_s);

/// Cases of every row and placement: parameters collective, dtype, op, root, size, placement,
/// ranks; one timing sample per trial (seconds per iteration); metrics time_us, algbw,
/// busbw (means over trials), busbw_stdev and busbw_cv (several trials), wrong. A case with
/// wrong elements is invalid; a placement the backend cannot run is skipped with its reason.
[[nodiscard]] std::vector<core::case_result> cases_of(const std::vector<std::vector<sweep_row>>& trials, int ranks,
                                                      int iterations, int warmup_iterations);

}  // namespace ironbench::comm
