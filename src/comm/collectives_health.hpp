// The rank-health parts of a collectives run at rank 0: the straggler report
// (settings.stragglers, comm/straggler_report.hpp) and, for a run that hangs, the trials it keeps
// (the command writes the run).
#pragma once

#include <string>
#include <vector>

#include "comm/collectives_partial.hpp"
#include "core/result.hpp"

namespace ironbench::comm {

/// Every rank's host, from the rank descriptions' "hostname" (empty where unknown).
[[nodiscard]] std::vector<std::string> rank_hosts(const std::vector<std::string>& rank_descriptions, int ranks);

/// Adds settings.stragglers to `run` from the rows' per-rank times (nothing with fewer than
/// two ranks) and returns its summary lines for the console.
std::vector<std::string> add_straggler_report(core::run_result& run, const std::vector<std::vector<sweep_row>>& trials,
                                              const std::vector<std::string>& rank_descriptions, int ranks);

/// The trials a hung run keeps: the complete ones, or the first alone when none is complete
/// (every kept trial has as many rows as the first).
[[nodiscard]] std::vector<std::vector<sweep_row>> kept_trials(const std::vector<std::vector<sweep_row>>& trials);

}  // namespace ironbench::comm
