// The HTML report's part on rank health in multi-rank runs: a collectives run's straggler
// report (settings.stragglers) and, for a run ended by a hang, who it waited for
// (settings.hang). Nothing for runs that have neither.
#pragma once

#include <ostream>

#include "report/html_report.hpp"

namespace ironbench::report {

/// Writes an "Rank health" section for every run of `input` that has settings.stragglers or
/// settings.hang: the verdict lines, and a table of every rank's share of steps last and
/// lateness (stragglers named in bold).
void write_rank_health_sections(std::ostream& out, const html_report_input& input);

}  // namespace ironbench::report
