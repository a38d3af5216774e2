// A point measured `repeat` times: each case (the same step, benchmark, device and parameters
// in every repeat) becomes one case whose metrics are the medians over the repeats, with the
// mean, the sample standard deviation and the trimmed mean of every metric beside it.
#pragma once

#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::experiment {

/// The mean of `values` after cutting floor(trim x n) values from each end of their sorted
/// order (trim in [0, 0.5)); the plain mean when that cuts nothing.
[[nodiscard]] double trimmed_mean(std::vector<double> values, double trim);

/// The cases of the repeats merged.
struct merged_repeats {
  std::vector<core::case_result> cases;  ///< metric values are medians; series[METRIC] the repeats' values
  /// One object per case and metric: {"case", "step", "benchmark", "metric", "unit", "repeats",
  /// "median", "mean", "stdev", "trimmed_mean", "values"}.
  json statistics = json::array();
};

/// Merges `repeats` (each the cases of one repeat, in order). A case's status is the worst of
/// its repeats (invalid when any repeat was invalid, with that reason); its timing and notes
/// are the first repeat's. A case missing from some repeat keeps the repeats that have it.
[[nodiscard]] merged_repeats merge_repeats(const std::vector<std::vector<core::case_result>>& repeats, double trim);

}  // namespace ironbench::experiment
