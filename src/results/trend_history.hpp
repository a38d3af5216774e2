// `ironbench trend METRIC`: a metric's value over the stored runs, case by case, in time
// order, with the changes results/trend_detection.hpp finds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "results/results_store.hpp"
#include "results/trend_detection.hpp"

namespace ironbench::results {

/// Which runs and cases to follow.
struct trend_query {
  std::string metric;
  run_filter filter;                          ///< benchmark, tags, host, since, until (limit unused)
  std::map<std::string, std::string> params;  ///< cases with these parameter values
  std::string device;                         ///< cases on this device ("" = any)
};

/// One run's point in a series.
struct trend_entry {
  std::int64_t run = 0;
  std::string uuid, start_time, host;
  double value = 0;
  std::size_t samples = 0;
  trend_verdict verdict;
};

/// One case (benchmark, device, parameters) followed over the runs.
struct trend_series {
  std::string benchmark, device;
  std::vector<std::pair<std::string, std::string>> params;
  std::string metric, unit;
  bool higher_is_better = true;
  std::vector<trend_entry> entries;  ///< oldest first

  /// "stream on cpu dtype=fp64 size=1048576 kernel=triad"
  [[nodiscard]] std::string label() const;
};

/// Every valid case of the selected runs that has the metric (a finite value), one series per
/// benchmark, device and parameters, in the order first seen; the runs in start-time order
/// (then store id). Throws usage_error when no run is selected or no case has the metric.
[[nodiscard]] std::vector<trend_series> build_trends(const results_store& store, const trend_query& query,
                                                     const trend_options& options);

/// Whether a series has a regression detected on one of its newest `recent` runs (0: anywhere):
/// a step the night it lands, a change point the night it is found, though it began earlier.
[[nodiscard]] bool has_recent_regression(const trend_series& series, std::size_t recent);

/// The series as JSON: [{"case", "benchmark", "device", "params", "metric", "unit",
/// "higher_is_better", "runs": [{"run", "uuid", "start_time", "host", "value", "samples",
/// "flag", "reference", "reference_runs", "change", "scatter", and for a regression or an
/// improvement "rule" ("step", "change point" or "from zero"), "confirmed", "detected_at_run" (the
/// store id of the run on whose night it was flagged), "level", "level_runs", and from zero
/// "absolute_change" (the value: its "change" is 0, a ratio to 0 being none); "p_value"?,
/// "speedup_low"?, "speedup_high"?}]}]. "flag" is history, steady, REGRESSION, improvement or outlier.
[[nodiscard]] json trends_json(const std::vector<trend_series>& series);

}  // namespace ironbench::results
