// Summary statistics of repeated measurements. docs/metrics.md gives every definition.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ironbench::core {

/// Percentile by linear interpolation between closest ranks (numpy's default, and vLLM's):
/// position h = (n - 1) * p / 100 in the sorted samples. `p` in [0, 100].
/// Requires a non-empty, sorted input.
[[nodiscard]] double percentile_sorted(std::span<const double> sorted, double p);

/// Copies, sorts and calls percentile_sorted. Requires a non-empty input.
[[nodiscard]] double percentile(std::span<const double> samples, double p);

[[nodiscard]] double mean(std::span<const double> samples);

/// Sample standard deviation (divisor n - 1); 0 for fewer than two samples.
[[nodiscard]] double sample_stddev(std::span<const double> samples);

/// Population standard deviation (divisor n), as vLLM reports serving latencies.
[[nodiscard]] double population_stddev(std::span<const double> samples);

/// The summary kept for every measured quantity.
struct summary {
  std::size_t count = 0;
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation
  double cv = 0;      ///< coefficient of variation: stddev / mean (0 when mean is 0)
};

/// Summarises `samples`; an empty input gives count 0 and zeros.
[[nodiscard]] summary summarize(std::span<const double> samples);

}  // namespace ironbench::core
