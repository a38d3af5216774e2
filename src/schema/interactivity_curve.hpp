// Throughput per GPU against interactivity, the curve public serving comparisons are drawn on
// (SemiAnalysis InferenceMAX, vLLM's `bench sweep plot_pareto`): each load point of a sweep is
// one point (interactivity, throughput); the Pareto frontier keeps the points no other point
// beats on both; a throughput at a chosen interactivity is read off the frontier by linear
// interpolation between its two neighbouring points, never extrapolated.
//
// Interactivity is tokens per second per user = 1000 / TPOT (ms). Pure functions, shared by the
// sweep that measures the points (serve/) and the report that draws them (report/).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::schema {

/// Metric keys of a serve point (vLLM result object and serve case).
namespace interactivity_key {
/// 1000 / median TPOT (ms): the median user's tokens/s (InferenceMAX's median_intvty).
inline constexpr const char* median = "median_interactivity";
/// 1000 / p90 TPOT (ms): the slow users': 90 % of requests streamed at least this fast.
inline constexpr const char* at_p90_tpot = "interactivity_at_p90_tpot";
/// output_throughput / --gpus.
inline constexpr const char* output_per_gpu = "output_throughput_per_gpu";
/// total_token_throughput / --gpus (InferenceMAX's tput_per_gpu: input and output tokens).
inline constexpr const char* total_per_gpu = "total_token_throughput_per_gpu";
inline constexpr const char* unit = "tok/s/user";
}  // namespace interactivity_key

/// 1000 / tpot_ms; nullopt when tpot_ms is not a positive finite number.
[[nodiscard]] std::optional<double> interactivity_of_tpot_ms(double tpot_ms);

/// One point of the curve; `index` says which point of the sweep (or case) it is.
struct curve_point {
  double interactivity = 0;  ///< tok/s/user
  double throughput = 0;     ///< tok/s (per GPU, or of the endpoint)
  std::size_t index = 0;
  bool operator==(const curve_point&) const = default;
};

/// The points no other point beats: none has at least the interactivity and at least the
/// throughput with one of them higher. Sorted by rising interactivity (so falling throughput);
/// of identical points the first is kept; points with a non-finite or negative coordinate
/// are left out.
[[nodiscard]] std::vector<curve_point> pareto_frontier(const std::vector<curve_point>& points);

/// The throughput the frontier gives at one interactivity.
struct frontier_reading {
  enum class kind {
    measured,      ///< a frontier point has exactly this interactivity
    interpolated,  ///< between two frontier points, linearly
    below_range,   ///< lower than the frontier's lowest interactivity: not extrapolated
    above_range,   ///< higher than its highest: not extrapolated
    no_frontier,   ///< no point to read from
  };
  kind status = kind::no_frontier;
  double interactivity = 0;
  std::optional<double> throughput;  ///< set when measured or interpolated
  /// measured: the point (low == high); interpolated: the two neighbours; out of range: the
  /// frontier's end nearest to the interactivity asked for (low == high).
  std::optional<curve_point> low, high;
};

/// Reads `frontier` (pareto_frontier's output) at `interactivity`.
[[nodiscard]] frontier_reading read_frontier(const std::vector<curve_point>& frontier, double interactivity);

/// "measured", "interpolated", "below_range", "above_range" or "no_frontier".
[[nodiscard]] const char* to_string(frontier_reading::kind kind);

/// The throughput a set of serve cases is drawn with: output_throughput_per_gpu when every
/// valid serve case that has an interactivity has it (--gpus was given), else output_throughput
/// (the whole endpoint's).
[[nodiscard]] std::string curve_throughput_metric(const std::vector<const core::case_result*>& cases);

/// The curve points of the valid "serve" cases among `cases` that have both an interactivity
/// (median_interactivity, or 1000 / median_tpot_ms for cases recorded before it existed) and
/// `throughput_metric`; index: the case's position in `cases`.
[[nodiscard]] std::vector<curve_point> serve_curve_points(const std::vector<const core::case_result*>& cases,
                                                          const std::string& throughput_metric);

/// {"interactivity", "status", "throughput" (when known), "interpolated" (bool), "from":
/// [{"index", "interactivity", "throughput"}, ...] (the points it came from or the range's end)}.
[[nodiscard]] json reading_json(const frontier_reading& reading);

}  // namespace ironbench::schema
