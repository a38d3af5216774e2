#include "core/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace ironbench::core {

double percentile_sorted(std::span<const double> sorted, double p) {
  IRONBENCH_CHECK(!sorted.empty(), "percentile of no samples");
  IRONBENCH_CHECK(p >= 0.0 && p <= 100.0, "percentile outside 0..100");
  const double position = (static_cast<double>(sorted.size()) - 1.0) * p / 100.0;
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

double percentile(std::span<const double> samples, double p) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return percentile_sorted(sorted, p);
}

double mean(std::span<const double> samples) {
  if (samples.empty()) return 0.0;
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

namespace {
double sum_squared_deviation(std::span<const double> samples) {
  const double average = mean(samples);
  double sum = 0.0;
  for (const double x : samples) sum += (x - average) * (x - average);
  return sum;
}
}  // namespace

double sample_stddev(std::span<const double> samples) {
  if (samples.size() < 2) return 0.0;
  return std::sqrt(sum_squared_deviation(samples) / static_cast<double>(samples.size() - 1));
}

double population_stddev(std::span<const double> samples) {
  if (samples.empty()) return 0.0;
  return std::sqrt(sum_squared_deviation(samples) / static_cast<double>(samples.size()));
}

summary summarize(std::span<const double> samples) {
  summary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.count = sorted.size();
  s.median = percentile_sorted(sorted, 50.0);
  s.p10 = percentile_sorted(sorted, 10.0);
  s.p90 = percentile_sorted(sorted, 90.0);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = mean(sorted);
  s.stddev = sample_stddev(sorted);
  s.cv = s.mean != 0.0 ? s.stddev / s.mean : 0.0;
  return s;
}

}  // namespace ironbench::core
