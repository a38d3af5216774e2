// Changes in a case's history, judged run by run with what was known on each run's night, by two
// rules. The step rule: a run outside a robust band around its level (the median of the level's
// runs, the band a multiple of 1.4826 x the median absolute deviation of the runs' values) is a
// suspect; the next runs confirm it (a new level: a regression or an improvement at the suspect)
// or clear it (an outlier, left out of the level, so the run after a spike is judged against the
// level before it). The change-point rule, for what is too slow or too small for the band (a
// drift of 1 % a run): E-divisive with means (Matteson & James, "A Nonparametric Approach for
// Multiple Change Point Analysis of Multivariate Data", JASA 109(505):334-345, 2014), the split
// statistic q-hat over the current level's runs with a permutation test of its significance, as
// Apache Otava (formerly Hunter: Fleming et al., "Hunter: Using Change Point Detection to Hunt for
// Performance Regressions", ICPE 2023, arXiv:2301.03034) runs it over a history; a change whose
// segments' medians differ by at least the minimum difference starts a new level at its first
// run. docs/metrics.md ("Trends") gives the rules; docs/benchmarks.md their measured detection and
// false-alarm rates.
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
  double alpha = 0.01;              ///< significance level of the U test (step rule, runs with samples)
  double confidence = 0.95;         ///< of the bootstrap interval, which must exclude 1
  double min_difference = 0.02;     ///< smaller changes are never flagged (as compare's --min-difference)
  double scatter_factor = 4;        ///< a suspect lies beyond this many robust SDs of a run's value (see below)
  std::size_t min_history = 5;      ///< runs before the first run of a history is judged
  std::size_t window = 20;          ///< at most this many runs, the newest of the level, as the reference
  std::size_t scatter_window = 30;  ///< the robust scatter is learned from this many earlier runs, the newest
  std::size_t precedent = 2;        ///< this many runs of the level as far out make a value known, not a suspect
  std::size_t confirm_runs = 2;     ///< the runs after a suspect that must agree with it for a new level
  std::size_t change_window = 100;  ///< the change-point rule searches the newest this many runs of the level
  std::size_t min_segment = 4;      ///< runs on each side of a change point, at least
  double change_alpha = 0.0005;     ///< significance level of the change point's permutation test
  int permutations = 1999;          ///< permutations of that test (a fixed seed: verdicts are reproducible)
};

enum class trend_flag {
  history,      ///< not judged: fewer than min_history runs precede it
  steady,       ///< judged: plausible
  regression,   ///< a change for the worse begins at this run
  improvement,  ///< a change for the better begins at this run
  outlier,      ///< outside the band, but a run after it was not: off for a night or a few, not a new level
};

/// Which rule found a change.
enum class trend_rule {
  none,
  step,          ///< a suspect outside the band, and the confirm_runs after it agreeing
  change_point,  ///< E-divisive's split between the level's runs before this one and from it on
  from_zero,     ///< a value other than 0 after a level of 0 (no ratio to judge it by)
};

[[nodiscard]] const char* to_string(trend_flag flag);
[[nodiscard]] const char* to_string(trend_rule rule);

struct trend_verdict {
  trend_flag flag = trend_flag::history;
  trend_rule rule = trend_rule::none;  ///< for a regression or an improvement
  bool confirmed = true;               ///< false: a suspect among the newest runs, not yet confirmed nor cleared
  std::size_t detected_at = 0;         ///< a change: the run (index) on whose night it was first flagged
  std::size_t reference_runs = 0;      ///< runs the value was judged against
  double reference = 0;                ///< their median value
  double level = 0;                    ///< a change: the new level (step: this run's value; change point: the
                                       ///< median of the runs from this one on when it was found)
  std::size_t level_runs = 0;          ///< a change: the runs that level is the median of
  double change = 0;                   ///< value / reference - 1 (a change: level / reference - 1); 0 from zero
  double absolute_change = 0;          ///< from zero: the value (value - 0), in the metric's unit
  double scatter = 0;                  ///< the robust SD of a run's value the band used (metric units)
  std::optional<double> p_value;       ///< step: U test of the samples (absent without); change point: permutation test
  std::optional<double> speedup_low, speedup_high;  ///< bootstrap interval of reference time / run time
};

/// Judges every point in order, each with only the points before it (a suspect's fate with the
/// `confirm_runs` after it). Runs with a value that is not positive and finite are listed, never
/// judged nor used, but for the zero rule below.
///
/// Zero rule (a level of 0, where no ratio exists: a count of wrong elements or failed requests,
/// a rate that was 0): a positive value whose `min_history` runs before it (those with a finite
/// value) were all exactly 0 is a change from 0, flagged at once with the rule from_zero,
/// reference 0, change 0 and absolute_change its value (a regression when lower is better, an
/// improvement when higher is), and starts a new level.
///
/// Reference: the current level's runs before this one (the level begins at the start of the
/// history or at the last change; outliers and pending suspects left out), the newest `window`;
/// the reference value is their median. The first `min_history` runs of a history are not judged.
///
/// Step rule. Run i lies *outside the band* when all hold:
///   |change| >= min_difference, change = value / reference - 1;
///   |change| > max(t x s_run, scatter_factor x s_sample) x sqrt(1 + (pi/2) / n_reference):
///     s_run = 1.4826 x MAD: the median of |x_j / median(level of j) - 1| over the newest
///     max(window, scatter_window) earlier runs (outliers left out; several levels when the
///     current one is short), from f = their count less their levels' count; t Student's quantile
///     for the tail the normal has beyond scatter_factor with 0.3675 f degrees of freedom (a MAD
///     is as precise as a standard deviation from 37 % as many runs; a scatter seen over few runs
///     is uncertain, so the band is wider); s_sample the median over the reference runs of the standard error
///     of a run's median its samples imply (1.2533 x SD / sqrt(n) / median); the square root for
///     the reference median's own error;
///   fewer than `precedent` of the current level's newest `window` runs (outliers included) lie as
///     far out on the same side (beyond the midpoint of reference and value): a value the case has
///     shown before (bimodal noise) is no suspect;
///   with samples on both sides: the U test of the run's samples against the reference runs'
///     pooled samples gives p < alpha, and the bootstrap interval of the ratio of their medians
///     excludes 1.
/// Such a run is a suspect, flagged at once as a regression (a change for the worse, by the
/// metric's direction) or an improvement with `confirmed` false, detected at itself: a nightly
/// gate fails the night a step lands. When the next `confirm_runs` judged runs agree with it (each
/// at least min_difference from the reference, beyond the midpoint of reference and suspect on
/// the suspect's side), it is confirmed: a new level begins at the suspect, or at the earliest of
/// the level's runs just before it that agree as well, and the runs after are judged against it.
/// When one of them does not agree, the suspect (and those that agreed with it) become outliers,
/// left out of the level, and that run is judged as any other: the run after a spike or a dip is
/// judged against the level before it. At the end of a history a suspect not yet
/// confirmed stays flagged, unconfirmed: the latest runs form the level. A level a step began that
/// ends, fewer than min_history runs later, with a confirmed step back into the band of the level
/// before it was a transient: its runs become outliers and the level before it continues.
///
/// Change-point rule, after each run judged steady, over the current level's runs up to it
/// (outliers left out, the newest `change_window`): the split tau maximising E-divisive's
///   q(tau) = tau (m - tau) / m x ( 2/(tau (m - tau)) sum_{i<tau<=j} |x_i - x_j|
///            - C(tau,2)^-1 sum_{i<k<tau} |x_i - x_k| - C(m-tau,2)^-1 sum_{tau<=j<k} |x_j - x_k| )
/// (alpha = 1, the right end at the newest run), with at least `min_segment` runs on each side, is
/// a change when the medians of the two sides differ by at least min_difference and a permutation
/// test gives p = (1 + #{shuffles whose largest q >= q}) / (permutations + 1) <= change_alpha (the
/// runs shuffled with a fixed seed, so a history always gets the same verdicts). Its first run is
/// flagged (or the outliers just before it, on its side beyond the midpoint of the two medians:
/// its first runs; reference: the median before it; level: the median from it on), detected at
/// the run just judged, and starts the new level.
[[nodiscard]] std::vector<trend_verdict> detect_changes(const std::vector<trend_point>& points,
                                                        const trend_options& options);

}  // namespace ironbench::results
