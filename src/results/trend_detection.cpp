#include "results/trend_detection.hpp"

#include <algorithm>
#include <cmath>

#include "results/significance.hpp"

namespace ironbench::results {
namespace {

double median_of(std::vector<double> values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(values.begin(), mid)) / 2;
}

/// The standard error of the median of `samples` as a share of it: 1.2533 x SD / sqrt(n) / median.
double relative_median_error(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  double mean = 0;
  for (const double s : samples) mean += s;
  mean /= static_cast<double>(samples.size());
  double squares = 0;
  for (const double s : samples) squares += (s - mean) * (s - mean);
  const double sd = std::sqrt(squares / static_cast<double>(samples.size() - 1));
  const double median = median_of(samples);
  if (median <= 0) return 0;
  return 1.2533 * sd / std::sqrt(static_cast<double>(samples.size())) / median;
}

/// The quantile of Student's t with `freedom` degrees of freedom for the tail the standard
/// normal has beyond `z` (Cornish-Fisher expansion, Abramowitz & Stegun 26.7.5; `freedom`
/// below 3 counts as 3, where the expansion still holds to a few percent).
double student_t_quantile(double z, std::size_t freedom) {
  const double n = static_cast<double>(std::max<std::size_t>(freedom, 3));
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n * n * n * n);
}

}  // namespace

const char* to_string(trend_flag flag) {
  switch (flag) {
    case trend_flag::history: return "history";
    case trend_flag::steady: return "steady";
    case trend_flag::regression: return "REGRESSION";
    case trend_flag::improvement: return "improvement";
  }
  return "?";
}

std::vector<trend_verdict> detect_changes(const std::vector<trend_point>& points, const trend_options& options) {
  std::vector<trend_verdict> verdicts(points.size());
  std::vector<std::size_t> level_starts = {0};  // the first run of each level, the current last
  const std::size_t min_history = std::max<std::size_t>(options.min_history, 3);
  for (std::size_t i = 0; i < points.size(); ++i) {
    auto& v = verdicts[i];
    const std::size_t level_start = level_starts.back();
    const std::size_t history = i - level_start;
    if (history < min_history) continue;
    const std::size_t first = i - std::min(history, std::max(options.window, min_history));
    std::vector<double> values;
    std::vector<double> pooled;
    std::vector<double> errors;
    bool all_sampled = true;
    for (std::size_t j = first; j < i; ++j) {
      values.push_back(points[j].value);
      all_sampled = all_sampled && points[j].samples_s.size() >= 2;
      pooled.insert(pooled.end(), points[j].samples_s.begin(), points[j].samples_s.end());
      errors.push_back(relative_median_error(points[j].samples_s));
    }
    v.reference_runs = values.size();
    v.reference = median_of(values);
    v.flag = trend_flag::steady;
    const double value = points[i].value;
    if (!(v.reference > 0) || !(value > 0) || !std::isfinite(value)) continue;  // a ratio needs two positives
    v.change = value / v.reference - 1;
    // The run-to-run scatter, from every level so far: the pooled standard deviation of the
    // runs' values relative to their level's mean, with its degrees of freedom.
    double squares = 0;
    std::size_t freedom = 0;
    for (std::size_t l = 0; l < level_starts.size(); ++l) {
      const std::size_t begin = level_starts[l], end = l + 1 < level_starts.size() ? level_starts[l + 1] : i;
      std::vector<double> level;
      for (std::size_t j = begin; j < end; ++j) {
        if (points[j].value > 0 && std::isfinite(points[j].value)) level.push_back(points[j].value);
      }
      if (level.size() < 2) continue;
      double mean = 0;
      for (const double x : level) mean += x;
      mean /= static_cast<double>(level.size());
      for (const double x : level) squares += (x / mean - 1) * (x / mean - 1);
      freedom += level.size() - 1;
    }
    const double run_scatter = freedom > 0 ? std::sqrt(squares / static_cast<double>(freedom)) : 0;
    const double sample_scatter = median_of(errors);
    // The reference is a median of n runs itself: its own error widens the band.
    const double widening = std::sqrt(1 + 1.5708 / static_cast<double>(values.size()));
    // A scatter estimated from few runs is uncertain: Student's t for the same tail as the
    // factor's normal one.
    const double run_factor = student_t_quantile(options.scatter_factor, freedom);
    const double band = std::max(run_factor * run_scatter, options.scatter_factor * sample_scatter) * widening;
    v.scatter = std::max(run_scatter, sample_scatter) * v.reference;
    const bool beyond_scatter = std::abs(v.change) > band;
    const bool large = std::abs(v.change) >= options.min_difference;
    if (!large || !beyond_scatter) continue;
    const auto& samples = points[i].samples_s;
    if (all_sampled && samples.size() >= 2) {
      v.p_value = mann_whitney_u(samples, pooled).p_value;
      const auto interval = bootstrap_median_ratio(pooled, samples, options.confidence);
      v.speedup_low = interval.low;
      v.speedup_high = interval.high;
      const bool excludes_one = interval.low > 1 || interval.high < 1;
      if (*v.p_value >= options.alpha || !excludes_one) continue;
    }
    const bool better = options.higher_is_better ? v.change > 0 : v.change < 0;
    v.flag = better ? trend_flag::improvement : trend_flag::regression;
    level_starts.push_back(i);
  }
  return verdicts;
}

}  // namespace ironbench::results
