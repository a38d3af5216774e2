// validate's pairwise check (level standard and long): under mpirun or srun every rank runs the
// pairwise sweep between nodes (collectives --pairs nodes) and rank 0 judges it: FAIL naming the
// node at fault, WARN naming a slow link, PASS otherwise; SKIP with the reason on one process,
// one node, or too few nodes to compare (docs/validate.md).
#pragma once

#include "comm/pairwise_sweep.hpp"
#include "validate/validation.hpp"

namespace ironbench::cli {

/// The check's row for a finished sweep.
[[nodiscard]] validate::check_row pairwise_check_row(const comm::pairwise_result& result);

/// Runs the check at `lvl` standard and above (every rank of the job must call it; `several`:
/// a job of several ranks) and, on rank 0 (`rank`), adds its row to `report`, its verdict to
/// the summary and to report.run.settings.validation.
void add_pairwise_check(validate::validation_report& report, bool several, int rank);

}  // namespace ironbench::cli
