// The tables of `ironbench results`: the runs of the results store (`results list`) and the
// published baselines (`results baselines`).
#pragma once

#include <ostream>
#include <vector>

#include "results/baselines.hpp"
#include "results/results_store.hpp"

namespace ironbench::report {

/// One row per run (id, uuid, start, host, command, status, cases, benchmarks, tags), as
/// aligned text or, with `markdown`, a Markdown table.
void write_stored_runs(const std::vector<results::stored_run>& runs, bool markdown, std::ostream& out);

/// One row per baseline (its name as ref:NAME, cases, title, source), as aligned text.
void write_baselines_table(const std::vector<results::baseline_info>& baselines, std::ostream& out);

}  // namespace ironbench::report
