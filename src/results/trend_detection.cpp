#include "results/trend_detection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

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

bool usable(double value) { return value > 0 && std::isfinite(value); }

/// E-divisive's split statistic (alpha = 1) for every split of `x` into x[0, tau) and
/// x[tau, m), with at least `min_segment` values on each side; the largest q and its tau. The
/// sums move one value from the right side to the left as tau grows: O(m^2) in all.
struct best_split {
  std::size_t tau = 0;
  double q = -std::numeric_limits<double>::infinity();
};

best_split e_divisive_split(const std::vector<double>& x, std::size_t min_segment) {
  const std::size_t m = x.size();
  best_split best;
  if (m < 2 * min_segment || min_segment < 2) return best;
  // to_left[t] = sum_{i<t} |x_i - x_t|; to_right[t] = sum_{j>t} |x_t - x_j|
  std::vector<double> to_left(m, 0.0), to_right(m, 0.0);
  double within_right = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = i + 1; j < m; ++j) {
      const double d = std::abs(x[i] - x[j]);
      to_right[i] += d;
      to_left[j] += d;
      within_right += d;
    }
  }
  double within_left = 0, between = 0;
  for (std::size_t tau = 1; tau + min_segment <= m; ++tau) {
    // x[tau - 1] moves from the right side to the left
    within_left += to_left[tau - 1];
    within_right -= to_right[tau - 1];
    between += to_right[tau - 1] - to_left[tau - 1];
    if (tau < min_segment) continue;
    const double left = static_cast<double>(tau), right = static_cast<double>(m - tau);
    const double energy =
        2 * between / (left * right) - within_left / (left * (left - 1) / 2) - within_right / (right * (right - 1) / 2);
    const double q = left * right / (left + right) * energy;
    if (q > best.q) best = {tau, q};
  }
  return best;
}

/// The permutation test of a split's q: the share of shuffles of `x` (with the split search
/// repeated on each) whose largest q is at least the observed one, (1 + count) / (n + 1). Stops
/// as soon as the answer can no longer be <= alpha. A fixed seed: the same history, the same p.
double permutation_p_value(std::vector<double> x, double observed, std::size_t min_segment, int permutations,
                           double alpha, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const double total = permutations + 1.0;
  int as_large = 0;
  for (int r = 0; r < permutations; ++r) {
    // Fisher-Yates with the generator's raw output (std::shuffle's draws differ between
    // standard libraries; mt19937_64's output does not)
    for (std::size_t k = x.size() - 1; k > 0; --k) std::swap(x[k], x[random() % (k + 1)]);
    if (e_divisive_split(x, min_segment).q >= observed * (1 - 1e-12)) ++as_large;
    if ((1 + as_large) / total > alpha) return (1 + as_large) / total;  // no longer significant
  }
  return (1 + as_large) / total;
}

class detector {
 public:
  detector(const std::vector<trend_point>& points, const trend_options& options)
      : points_(points),
        options_(options),
        verdicts_(points.size()),
        outlier_(points.size(), 0),
        min_history_(std::max<std::size_t>(options.min_history, 3)),
        window_(std::max(options.window, min_history_)) {}

  std::vector<trend_verdict> run() {
    std::size_t seen = 0;   // usable runs so far
    std::size_t zeros = 0;  // runs of exactly 0 just before this one (runs without a finite value passed over)
    for (std::size_t i = 0; i < points_.size(); ++i) {
      auto& v = verdicts_[i];
      const double x = points_[i].value;
      if (!usable(x)) {
        if (x == 0) {
          ++zeros;
        } else if (std::isfinite(x)) {
          zeros = 0;  // a negative value: no level of 0
        }
        // Listed, never judged (a 0 after min_history of them: the level of 0 holds).
        v.flag = seen >= min_history_ || zeros > min_history_ ? trend_flag::steady : trend_flag::history;
        continue;
      }
      if (zeros >= min_history_) {
        from_zero(i, zeros);
        zeros = 0;
        ++seen;
        continue;
      }
      zeros = 0;
      if (seen++ < min_history_) continue;  // history
      judge(i);
    }
    return std::move(verdicts_);
  }

 private:
  /// Where a run's value is plausible, judged against some reference runs.
  struct band {
    double reference = 0;        ///< the reference runs' median
    double width = 0;            ///< the band's half width, relative to the reference
    double scatter = 0;          ///< the robust SD of a run's value, relative
    std::vector<double> pooled;  ///< the reference runs' samples
    bool all_sampled = false;    ///< every reference run has samples
  };

  double value(std::size_t j) const { return points_[j].value; }
  bool is_pending(std::size_t j) const { return std::find(pending_.begin(), pending_.end(), j) != pending_.end(); }
  bool member(std::size_t j) const { return usable(value(j)) && outlier_[j] == 0 && !is_pending(j); }
  std::size_t level_start_of(std::size_t j) const {
    return *(std::upper_bound(level_starts_.begin(), level_starts_.end(), j) - 1);
  }
  bool worse(double change) const { return options_.higher_is_better ? change < 0 : change > 0; }

  /// The members among runs [begin, end), the newest `limit`, oldest first.
  std::vector<std::size_t> members(std::size_t begin, std::size_t end, std::size_t limit) const {
    std::vector<std::size_t> runs;
    for (std::size_t j = end; j > begin && runs.size() < limit; --j) {
      if (member(j - 1)) runs.push_back(j - 1);
    }
    std::reverse(runs.begin(), runs.end());
    return runs;
  }

  /// 1.4826 x MAD of the newest max(window, scatter_window) members before i, each relative to
  /// its level's median, and the count it comes from (runs less levels).
  std::pair<double, std::size_t> run_scatter(std::size_t i) const {
    std::vector<double> deviations;
    std::size_t levels = 0, current = static_cast<std::size_t>(-1);
    double median = 0;
    for (std::size_t j = i; j > 0 && deviations.size() < std::max(window_, options_.scatter_window); --j) {
      if (!member(j - 1)) continue;
      const std::size_t start = level_start_of(j - 1);
      if (start != current) {
        std::vector<double> level;
        for (const std::size_t k : members(start, i, static_cast<std::size_t>(-1))) {
          if (level_start_of(k) == start) level.push_back(value(k));
        }
        current = start;
        median = median_of(level);
        ++levels;
      }
      deviations.push_back(std::abs(value(j - 1) / median - 1));
    }
    if (deviations.size() <= levels) return {0.0, 0};
    return {1.4826 * median_of(deviations), deviations.size() - levels};
  }

  band band_around(std::size_t i, const std::vector<std::size_t>& reference) const {
    band b;
    if (reference.empty()) return b;
    std::vector<double> values, errors;
    b.all_sampled = true;
    for (const std::size_t r : reference) {
      values.push_back(value(r));
      b.all_sampled = b.all_sampled && points_[r].samples_s.size() >= 2;
      b.pooled.insert(b.pooled.end(), points_[r].samples_s.begin(), points_[r].samples_s.end());
      errors.push_back(relative_median_error(points_[r].samples_s));
    }
    b.reference = median_of(values);
    const auto [run_scatter_share, freedom] = run_scatter(i);
    const double sample_scatter = median_of(errors);
    const double widening = std::sqrt(1 + 1.5708 / static_cast<double>(values.size()));
    // A MAD from f runs is as precise as a standard deviation from 0.37 f (its efficiency at the
    // normal distribution): the t quantile takes that many degrees of freedom.
    const auto mad_freedom = static_cast<std::size_t>(std::lround(0.3675 * static_cast<double>(freedom)));
    b.width = std::max(student_t_quantile(options_.scatter_factor, mad_freedom) * run_scatter_share,
                       options_.scatter_factor * sample_scatter) *
              widening;
    b.scatter = std::max(run_scatter_share, sample_scatter);
    return b;
  }

  bool inside(double change, const band& b) const {
    return std::abs(change) < options_.min_difference || std::abs(change) <= b.width;
  }

  /// Fills v with run i judged against the current level (a pending suspect left out); whether
  /// it lies outside the band (a suspect, or agreeing with one).
  bool judge_against_level(std::size_t i, trend_verdict& v) const {
    const std::size_t start = level_starts_.back();
    const auto reference = members(start, i, window_);
    const auto b = band_around(i, reference);
    v.flag = trend_flag::steady;
    v.reference_runs = reference.size();
    if (!(b.reference > 0)) return false;
    v.reference = b.reference;
    v.change = value(i) / b.reference - 1;
    v.scatter = b.scatter * b.reference;
    if (inside(v.change, b)) return false;
    // A value the level has shown before (bimodal noise) is no suspect.
    const double midpoint = (b.reference + value(i)) / 2;
    std::size_t seen_before = 0, looked = 0;
    for (std::size_t k = i; k > start && looked < window_; --k) {
      if (!usable(value(k - 1)) || is_pending(k - 1)) continue;
      ++looked;
      if ((value(k - 1) - midpoint) * v.change >= 0) ++seen_before;
    }
    if (options_.precedent > 0 && seen_before >= options_.precedent) return false;
    const auto& samples = points_[i].samples_s;
    if (b.all_sampled && samples.size() >= 2) {
      v.p_value = mann_whitney_u(samples, b.pooled).p_value;
      const auto interval = bootstrap_median_ratio(b.pooled, samples, options_.confidence);
      v.speedup_low = interval.low;
      v.speedup_high = interval.high;
      const bool excludes_one = interval.low > 1 || interval.high < 1;
      if (*v.p_value >= options_.alpha || !excludes_one) return false;
    }
    return true;
  }

  /// Run i, positive after `zeros` runs of exactly 0: a change from 0 that starts a new level
  /// (a pending suspect of the level before dropped: the zeros came after it).
  void from_zero(std::size_t i, std::size_t zeros) {
    for (const std::size_t p : pending_) make_outlier(p);
    pending_.clear();
    auto& v = verdicts_[i];
    v = trend_verdict{};
    v.flag = worse(1) ? trend_flag::regression : trend_flag::improvement;
    v.rule = trend_rule::from_zero;
    v.detected_at = i;
    v.reference_runs = zeros;
    v.level = value(i);
    v.level_runs = 1;
    v.absolute_change = value(i);
    level_starts_.push_back(i);
  }

  void make_outlier(std::size_t r) {
    auto& v = verdicts_[r];
    v.flag = trend_flag::outlier;
    v.rule = trend_rule::none;
    v.confirmed = true;
    v.level = 0;
    v.level_runs = 0;
    outlier_[r] = 1;
  }

  void judge(std::size_t i) {
    auto& v = verdicts_[i];
    const bool outside = judge_against_level(i, v);
    if (!pending_.empty()) {
      // A run agrees with the suspect when it lies at least min_difference from the reference, on
      // the suspect's side of the midpoint between them: a step's later runs do, noise rarely.
      const auto& suspect = verdicts_[pending_.front()];
      const double midpoint = (suspect.reference + value(pending_.front())) / 2;
      const bool agrees = std::abs(v.change) >= options_.min_difference && (v.change > 0) == (suspect.change > 0) &&
                          (value(i) - midpoint) * suspect.change > 0;
      if (agrees) {
        pending_.push_back(i);
        if (pending_.size() > options_.confirm_runs) confirm();
        return;
      }
      // Not confirmed: the suspect (and the runs that agreed with it) were off, not a new level;
      // this run is judged as any other, against the level before them.
      for (const std::size_t p : pending_) make_outlier(p);
      pending_.clear();
    }
    if (outside) {
      v.flag = worse(v.change) ? trend_flag::regression : trend_flag::improvement;
      v.rule = trend_rule::step;
      v.confirmed = false;
      v.detected_at = i;
      v.level = value(i);
      v.level_runs = 1;
      pending_.push_back(i);
      if (pending_.size() > options_.confirm_runs) confirm();
      return;
    }
    search_change_point(i);
  }

  /// The suspect and the runs that agreed with it form a new level (from the earliest of the runs
  /// just before it that agree as well). When the current level is a short one a step began
  /// (fewer than min_history runs) and these runs lie back in the band of the level before it,
  /// that short level was a transient: its runs become outliers and the level before it continues.
  void confirm() {
    const std::size_t first = pending_.front();
    if (level_starts_.size() >= 2 && verdicts_[level_starts_.back()].rule == trend_rule::step) {
      const std::size_t current = level_starts_.back(), before = level_starts_[level_starts_.size() - 2];
      if (members(current, first, min_history_).size() < min_history_) {
        const auto b = band_around(first, members(before, current, window_));
        const bool back = b.reference > 0 && std::all_of(pending_.begin(), pending_.end(), [&](std::size_t r) {
                            return inside(value(r) / b.reference - 1, b);
                          });
        if (back) {
          for (std::size_t r = current; r < first; ++r) {
            if (!member(r)) continue;
            make_outlier(r);
            verdicts_[r].reference = b.reference;
            verdicts_[r].change = value(r) / b.reference - 1;
          }
          level_starts_.pop_back();
          for (const std::size_t r : pending_) {
            auto& v = verdicts_[r];
            const double scatter = b.scatter * b.reference;
            v = trend_verdict{};
            v.flag = trend_flag::steady;
            v.reference = b.reference;
            v.reference_runs = members(before, current, window_).size();
            v.change = value(r) / b.reference - 1;
            v.scatter = scatter;
          }
          pending_.clear();
          return;
        }
      }
    }
    // The level's runs just before the suspect that agree with it (inside the band, but beyond
    // the midpoint on its side) were the step's first runs: the new level begins at the earliest.
    const auto& suspect = verdicts_[first];
    const double midpoint = (suspect.reference + value(first)) / 2;
    std::vector<std::size_t> level = pending_;
    for (std::size_t k = first; k > level_starts_.back() + 1; --k) {
      const std::size_t r = k - 1;
      if (!usable(value(r))) continue;
      const double change = value(r) / suspect.reference - 1;
      if (!member(r) || std::abs(change) < options_.min_difference || (change > 0) != (suspect.change > 0) ||
          (value(r) - midpoint) * suspect.change <= 0) {
        break;
      }
      level.insert(level.begin(), r);
    }
    if (level.front() != first) {
      auto& start = verdicts_[level.front()];
      start = suspect;
      start.change = value(level.front()) / suspect.reference - 1;
      start.level = value(level.front());
    }
    verdicts_[level.front()].confirmed = true;
    level_starts_.push_back(level.front());
    for (std::size_t k = 1; k < level.size(); ++k) {
      const std::size_t r = level[k];
      const double scatter_share = verdicts_[r].reference > 0 ? verdicts_[r].scatter / verdicts_[r].reference : 0;
      std::vector<double> earlier;
      for (std::size_t q = 0; q < k; ++q) earlier.push_back(value(level[q]));
      auto& v = verdicts_[r];
      v = trend_verdict{};
      v.flag = trend_flag::steady;
      v.reference = median_of(earlier);
      v.reference_runs = earlier.size();
      v.change = value(r) / v.reference - 1;
      v.scatter = scatter_share * v.reference;
    }
    pending_.clear();
  }

  void search_change_point(std::size_t i) {
    const auto runs = members(level_starts_.back(), i + 1, options_.change_window);
    const std::size_t min_segment = std::max<std::size_t>(options_.min_segment, 2);
    if (runs.size() < 2 * min_segment) return;
    std::vector<double> x;
    for (const std::size_t r : runs) x.push_back(value(r));
    const auto split = e_divisive_split(x, min_segment);
    if (split.tau == 0) return;
    const double before = median_of({x.begin(), x.begin() + static_cast<std::ptrdiff_t>(split.tau)});
    const double after = median_of({x.begin() + static_cast<std::ptrdiff_t>(split.tau), x.end()});
    const double change = after / before - 1;
    if (std::abs(change) < options_.min_difference) return;
    const std::uint64_t seed = 0x9E3779B97F4A7C15ULL ^ (static_cast<std::uint64_t>(i) << 20) ^ x.size();
    const double p =
        permutation_p_value(x, split.q, min_segment, std::max(options_.permutations, 1), options_.change_alpha, seed);
    if (p > options_.change_alpha) return;
    std::size_t first = runs[split.tau];
    // Outliers just before it on the change's side, beyond the midpoint, were its first runs.
    for (std::size_t r = first; r > runs[split.tau - 1] + 1; --r) {
      const std::size_t k = r - 1;
      if (!usable(value(k))) continue;
      if (outlier_[k] == 0 || (value(k) - (before + after) / 2) * change <= 0) break;
      outlier_[k] = 0;
      verdicts_[k].flag = trend_flag::steady;
      first = k;
    }
    auto& v = verdicts_[first];
    const double scatter_share = v.reference > 0 ? v.scatter / v.reference : 0;
    v = trend_verdict{};
    v.flag = worse(change) ? trend_flag::regression : trend_flag::improvement;
    v.rule = trend_rule::change_point;
    v.detected_at = i;
    v.reference = before;
    v.reference_runs = split.tau;
    v.level = after;
    v.level_runs = x.size() - split.tau;
    v.change = change;
    v.scatter = scatter_share * before;
    v.p_value = p;
    level_starts_.push_back(first);
  }

  const std::vector<trend_point>& points_;
  const trend_options& options_;
  std::vector<trend_verdict> verdicts_;
  std::vector<char> outlier_;
  std::vector<std::size_t> level_starts_ = {0};
  std::vector<std::size_t> pending_;  ///< a suspect and the runs that agreed with it so far
  std::size_t min_history_, window_;
};

}  // namespace

const char* to_string(trend_flag flag) {
  switch (flag) {
    case trend_flag::history: return "history";
    case trend_flag::steady: return "steady";
    case trend_flag::regression: return "REGRESSION";
    case trend_flag::improvement: return "improvement";
    case trend_flag::outlier: return "outlier";
  }
  return "?";
}

const char* to_string(trend_rule rule) {
  switch (rule) {
    case trend_rule::none: return "";
    case trend_rule::step: return "step";
    case trend_rule::change_point: return "change point";
    case trend_rule::from_zero: return "from zero";
  }
  return "?";
}

std::vector<trend_verdict> detect_changes(const std::vector<trend_point>& points, const trend_options& options) {
  return detector(points, options).run();
}

}  // namespace ironbench::results
