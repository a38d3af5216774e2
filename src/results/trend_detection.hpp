// Changes in a case's history: for each run in time order, whether its value lies outside
// what the runs before it make plausible. The same tests `compare` uses (Mann–Whitney U on the
// timing samples, a bootstrap interval of the ratio of medians), against the runs since the
// last change, behind two gates that keep noise quiet: the change must exceed a minimum size,
// and lie beyond the run-to-run scatter the earlier runs show. docs/metrics.md ("Trends")
// gives the rule and its measured false-alarm rate.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace ironbench::results {

/// One run's value of the followed metric.
struct trend_point {
  double value = 0;
  std::vector<double> samples_s;  ///< the case's timing samples (empty when it has none: imported)
};

struct trend_options {
  bool higher_is_better = true;
  double alpha = 0.01;           ///< significance level of the U test
  double confidence = 0.95;      ///< of the bootstrap interval, which must exclude 1
  double min_difference = 0.02;  ///< smaller changes are never flagged (as compare's --min-difference)
  double scatter_factor = 4;     ///< the change must exceed this many SDs of a run's value (see below)
  std::size_t min_history = 5;   ///< runs at one level before the next is tested
  std::size_t window = 20;       ///< at most this many runs, the newest, as the reference
};

enum class trend_flag {
  history,      ///< not tested: fewer than min_history runs since the start or the last change
  steady,       ///< tested: plausible
  regression,   ///< a significant change for the worse; the first run at the new level
  improvement,  ///< a significant change for the better
};

[[nodiscard]] const char* to_string(trend_flag flag);

struct trend_verdict {
  trend_flag flag = trend_flag::history;
  std::size_t reference_runs = 0;                   ///< runs the value was judged against
  double reference = 0;                             ///< their median value
  double change = 0;                                ///< value / reference - 1 (of the raw metric)
  double scatter = 0;                               ///< the robust SD of a run's value the gate used (metric units)
  std::optional<double> p_value;                    ///< U test of the samples (absent without samples)
  std::optional<double> speedup_low, speedup_high;  ///< bootstrap interval of reference time / run time
};

/// Judges every point against the points before it, in order. A run is tested once
/// min_history runs precede it since the start or the last flagged change (the newest `window`
/// of them form the reference, their median the reference value). It is flagged when all hold:
///   |change| >= min_difference;
///   |change| > max(t x s_run, scatter_factor x s_sample) x sqrt(1 + (pi/2) / n_reference):
///     s_run the pooled standard deviation of every earlier run's value relative to the mean of
///     its level (levels split at flagged changes), with its degrees of freedom f; t Student's
///     quantile with f degrees of freedom for the tail the normal has beyond scatter_factor (a
///     scatter seen over few runs is uncertain, so the band is wider); s_sample the median over
///     the reference runs of the standard error of a run's median its samples imply
///     (1.2533 x SD / sqrt(n) / median); the square root for the reference median's own error;
///   with samples on both sides: the U test of the run's samples against the reference runs'
///     pooled samples gives p < alpha, and the bootstrap interval of the ratio of their medians
///     excludes 1.
/// A flagged run starts a new level: the runs after it are judged against it and its successors.
[[nodiscard]] std::vector<trend_verdict> detect_changes(const std::vector<trend_point>& points,
                                                        const trend_options& options);

}  // namespace ironbench::results
