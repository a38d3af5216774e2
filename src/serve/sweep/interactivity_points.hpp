// A sweep's points as throughput per GPU against interactivity (schema/interactivity_curve.hpp):
// each point's interactivity and per-GPU throughputs, then, once the sweep is done, its Pareto
// frontier, printed and recorded in the run's settings, and with --at-interactivity the
// throughput read off the frontier as a case of its own (serve_at_interactivity).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// A point's keys: median_interactivity = 1000 / median TPOT (ms) and
/// interactivity_at_p90_tpot = 1000 / p90 TPOT (ms) over the completed requests with more than
/// one output token (absent when there is none), and with `gpus`: gpus,
/// output_throughput_per_gpu and total_token_throughput_per_gpu from `metrics` (serving_metrics()).
[[nodiscard]] json interactivity_metrics(const std::vector<request_record>& records, const json& metrics,
                                         std::optional<int> gpus);

/// The serve case metrics of the keys interactivity_metrics() put in `metrics`, with units.
[[nodiscard]] std::vector<core::metric> interactivity_case_metrics(const json& metrics);

/// What a sweep's curve adds to its run.
struct interactivity_outcome {
  json settings;                             ///< the run's settings key "interactivity_curve" (null: no point)
  std::optional<core::case_result> at_case;  ///< serve_at_interactivity, with --at-interactivity
  std::string console;                       ///< the lines printed after the sweep
};

/// The curve of `cases` (a sweep's serve cases, in order; the frontier names them by index):
/// {"interactivity": "median_interactivity", "throughput": the metric, "gpus", "points":
/// [{"case", "interactivity", "throughput", "label"}], "frontier": [same], "at": reading}.
[[nodiscard]] interactivity_outcome interactivity_curve(const std::vector<core::case_result>& cases,
                                                        std::optional<int> gpus,
                                                        std::optional<double> at_interactivity);

}  // namespace ironbench::serve
