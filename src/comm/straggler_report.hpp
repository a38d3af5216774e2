// Which rank the others wait for in a run that does finish: the straggler report. Every rank
// times each measured step from the moment it arrives (after anything that delays it) to the
// moment the step ends; the step ends at about the same time on every rank, because no rank
// leaves a collective before the last one has joined it. So the rank that arrives last spends
// the least time inside, and its lateness is how much less than the median rank:
//   lateness(r, step) = median over ranks of time(step) - time(r, step).
// No clock is compared across hosts. A rank that is the last in most steps, by a margin that is
// not noise, is named. The analysis (schema/straggler_analysis.hpp) also reads nccl-tests'
// per-process iteration times (JSON with -I 1: per_process_max_times_us) on import.
#pragma once

#include <string>
#include <vector>

#include "comm/collective_sweep.hpp"
#include "schema/straggler_analysis.hpp"

namespace ironbench::comm {

// The analysis itself is shared with the nccl-tests import (schema/straggler_analysis.hpp).
using schema::find_stragglers;
using schema::straggler_json;
using schema::straggler_lines;
using schema::straggler_rank;
using schema::straggler_report;
using schema::straggler_rule;
using schema::timed_step;

/// The steps of a collectives run: every trial's rows and placements that ran with every
/// rank's time (placement_result::rank_seconds).
[[nodiscard]] std::vector<timed_step> collective_steps(const std::vector<std::vector<sweep_row>>& trials);

/// How ironbench's own collectives runs time the steps (settings.stragglers.method).
inline constexpr const char* collectives_straggler_method =
    "each rank's time from its arrival at a measured step (after the barrier and any injected delay) to the end of "
    "its timed iterations; the rank with the least time arrived last, and lateness = median rank's time - its time";

}  // namespace ironbench::comm
