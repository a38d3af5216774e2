// Throughput turned into money: what a million tokens cost on a node rented at a price per
// hour, and performance per dollar, so that nodes at different prices compare fairly.
// docs/metrics.md ("Cost") gives the formulas.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/comparison.hpp"

namespace ironbench::results {

/// A rental price: per node, or per GPU (multiplied by the node's GPU count).
struct price {
  double usd_per_hour = 0;
  bool per_gpu = false;
};

/// Parses "2.50" (USD per node-hour) or "2.50/gpu" (USD per GPU-hour). Usage error otherwise.
[[nodiscard]] price parse_price(const std::string& text);

/// GPUs behind a run: the "gpus" tag, else the run's GPU devices, else the published
/// hardware's "gpus" (baselines); nullopt when unknown (a serving client's run).
[[nodiscard]] std::optional<int> gpu_count(const core::run_result& run);

struct cost_row {
  std::string side, benchmark, key, metric, unit;
  double value = 0;                              ///< the metric (tokens/s, TFLOP/s, GB/s ...)
  double node_usd_per_hour = 0;                  ///< price of everything behind the value
  double value_per_usd_hour = 0;                 ///< value / node_usd_per_hour ("performance per dollar")
  std::optional<double> usd_per_million_tokens;  ///< token throughputs only
};

/// One row per valid case with a higher-is-better metric (the comparison's main metric
/// choice) for every side. `prices` holds one price for all sides or one per side. Throws
/// usage_error when a per-GPU price meets a side whose GPU count is unknown.
[[nodiscard]] std::vector<cost_row> cost_rows(const std::vector<comparison_side>& sides,
                                              const std::vector<price>& prices);

}  // namespace ironbench::results
