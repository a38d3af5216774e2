// `ironbench experiment plan`: the resolved plan as text, every point with its command lines.
#pragma once

#include <ostream>

#include "experiment/experiment_plan.hpp"

namespace ironbench::experiment {

/// Writes `plan`: a header (name, file, hash, points x repeats, tags), then per point its
/// matrix values, key and each step's command line with what is checked.
void write_plan(const experiment_plan& plan, std::ostream& out);

}  // namespace ironbench::experiment
