// validate's pairwise check (level standard and long): under mpirun or srun every rank runs the
// pairwise sweep between nodes (collectives --pairs nodes, comm/pairwise_job.hpp) and rank 0
// judges it: FAIL naming the node at fault, WARN naming a slow link, PASS otherwise; SKIP with
// the reason on one process, one node, or too few nodes to compare (docs/validate.md).
#pragma once

#include <atomic>

#include "comm/pairwise_sweep.hpp"
#include "validate/validation.hpp"

namespace ironbench::validate {

/// The check's row for a finished sweep.
[[nodiscard]] check_row pairwise_check_row(const comm::pairwise_result& result);

/// Runs the check at `report.lvl` standard and above (every rank of the job must call it;
/// `several`: a job of several ranks; `cancel`: set to stop the sweep early) and, on rank 0
/// (`rank`), adds its row to `report`, its verdict to the summary and to
/// report.run.settings.validation.
void add_pairwise_check(validation_report& report, bool several, int rank, const std::atomic<bool>* cancel);

}  // namespace ironbench::validate
