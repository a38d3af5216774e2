// The data of the report's "throughput per GPU vs interactivity" chart: each side's serve
// points and their Pareto frontier (schema/interactivity_curve.hpp), on one throughput for
// every side so that several runs' curves overlay on one chart.
#pragma once

#include <vector>

#include "core/json.hpp"
#include "results/comparison.hpp"

namespace ironbench::report {

/// {"throughput": output_throughput_per_gpu when every side's points have it, else
/// output_throughput; "interactivity": "median_interactivity"; "sides": [{"points": [{"x", "y",
/// "case"}], "frontier": [same]}, one per side]}, where "case" indexes the side's cases in the
/// order of all its runs; null when no side has a serve point with a TPOT.
[[nodiscard]] json interactivity_chart_data(const std::vector<results::comparison_side>& sides);

}  // namespace ironbench::report
