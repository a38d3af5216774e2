// The environment differences of compared sides (results/environment_difference.hpp) as the
// text or Markdown table `ironbench compare` prints above the numbers.
#pragma once

#include <ostream>
#include <vector>

#include "results/comparison.hpp"

namespace ironbench::report {

/// "environment differences:" and a table of the facts that differ, one column per side
/// ("environment: the same on every side" when none does); `markdown` writes a Markdown table.
void write_environment_difference(const std::vector<results::comparison_side>& sides, bool markdown, std::ostream& out);

}  // namespace ironbench::report
