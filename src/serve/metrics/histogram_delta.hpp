// A Prometheus histogram read from one /metrics answer (its cumulative _bucket, _sum and
// _count samples, added up over label sets), the difference of two readings (what a load
// point added), and the mean and bucket-interpolated percentiles of that difference.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "serve/metrics/prometheus_text.hpp"

namespace ironbench::serve {

/// One histogram at one moment (or the increase between two moments).
struct histogram_reading {
  std::vector<double> bounds;      ///< the finite `le` bounds, ascending (+Inf is `count`)
  std::vector<double> cumulative;  ///< observations <= each bound
  double sum = 0;                  ///< of every observation
  double count = 0;                ///< observations (the +Inf bucket)
};

/// The histogram `name` (without suffix) in `samples`: its _sum, _count and _bucket samples,
/// added up over every label set (a bound present in only some label sets is dropped);
/// nullopt when `name`_count is absent.
[[nodiscard]] std::optional<histogram_reading> read_histogram(const std::vector<prometheus_sample>& samples,
                                                              const std::string& name);

/// A counter's increase from `before` to `after`: a reading below the earlier one is a restart
/// from zero (the server restarted), so it counts from 0.
[[nodiscard]] inline double counter_increase(double before, double after) {
  return after >= before ? after - before : after;
}

/// What `after` added to `before`. A counter below its earlier value (the server restarted)
/// counts from zero; buckets are kept only where both readings have the same bounds.
[[nodiscard]] histogram_reading histogram_increase(const histogram_reading& before, const histogram_reading& after);

/// Mean of the observations (sum / count); nullopt with none.
[[nodiscard]] std::optional<double> histogram_mean(const histogram_reading& h);

/// The q-quantile (0 < q < 1) estimated as Prometheus' histogram_quantile does: the bucket
/// holding rank q x count, interpolated linearly inside it (the first bucket from 0); a rank
/// in the +Inf bucket gives the highest finite bound. nullopt with no observations or no buckets.
[[nodiscard]] std::optional<double> histogram_quantile(const histogram_reading& h, double q);

/// The sum of two readings (several servers of one role): bounds kept where both agree.
[[nodiscard]] histogram_reading histogram_add(const histogram_reading& a, const histogram_reading& b);

}  // namespace ironbench::serve
