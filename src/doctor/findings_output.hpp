// Findings as the console prints them: after a run's result table, and by `ironbench doctor`.
#pragma once

#include <ostream>
#include <vector>

#include "doctor/finding.hpp"

namespace ironbench::doctor {

/// "Findings (N)" and each finding with its evidence, what it affects and the fix; "Doctor: no
/// findings (K checks)" when there are none.
void write_findings(const std::vector<finding>& findings, std::size_t checks, std::ostream& out);

}  // namespace ironbench::doctor
