// Is a difference between two sets of repeated measurements real, or noise? The two-sided
// Mann–Whitney U test (no assumption of normality: benchmark timings are skewed), and a
// bootstrap confidence interval of the ratio of the medians (ironbench's rates are work over
// the median time). docs/metrics.md ("Comparisons") gives the formulas.
#pragma once

#include <span>

namespace ironbench::results {

struct u_test {
  double u = 0;        ///< U of the first sample: pairs (a, b) with a > b, ties counting 1/2
  double p_value = 1;  ///< two-sided
  bool exact = false;  ///< exact distribution (small samples without ties), else normal approximation
};

/// Mann–Whitney U test of `a` against `b`. Exact for n_a, n_b <= 20 without ties; otherwise
/// the normal approximation with tie and continuity corrections. p = 1 when either is empty.
[[nodiscard]] u_test mann_whitney_u(std::span<const double> a, std::span<const double> b);

struct ratio_interval {
  double ratio = 1;  ///< median(a) / median(b)
  double low = 1;    ///< percentile-bootstrap confidence interval of the ratio
  double high = 1;
};

/// The ratio of the medians of `a` and `b` with a percentile-bootstrap interval: `resamples`
/// times, both samples are resampled with replacement (a fixed seed: the same inputs give the
/// same interval) and the ratio of the resampled medians kept; the interval runs between the
/// (1 - confidence) / 2 and (1 + confidence) / 2 quantiles of those ratios. Requires both
/// non-empty with positive medians.
[[nodiscard]] ratio_interval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b,
                                                    double confidence = 0.95, int resamples = 2000);

/// Quantile of the standard normal distribution, 0 < p < 1.
[[nodiscard]] double normal_quantile(double p);

}  // namespace ironbench::results
