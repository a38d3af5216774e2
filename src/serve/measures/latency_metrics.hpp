// The per-request latency metrics of a serving point, as one table: the names users give
// --percentile-metrics, --slo and --goodput, the result keys ({mean,median,std}_{name}_ms,
// p{P}_{name}_ms, slo_attainment_{name}), the console report's section, and how each is
// computed from a request record. Selection, SLOs, goodput and the report all read it, so a
// new latency metric is one row here and its per-request computation (docs/contributing.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// One latency metric. Values are seconds in the record and milliseconds in the result.
struct latency_metric {
  const char* name;   ///< as users type it and as the keys spell it: ttft -> median_ttft_ms
  const char* label;  ///< the report's rows: "Median TTFT (ms):"
  const char* title;  ///< the report's section title
  const char* unit;   ///< of the result's values ("ms")
  /// {mean,median,std}_{name}_ms are written whatever --percentile-metrics selects (vLLM's
  /// four metrics); false: only when selected.
  bool always;
  bool slo;           ///< may be an --slo limit (a statistic over the point)
  bool needs_tokens;  ///< undefined for replies without tokens (embeddings, rerank, score)
  /// Its --goodput objective in goodput_slo; nullptr when it cannot be one (no single value per request).
  std::optional<double> goodput_slo::*goodput;
  /// Appends a completed request's values (seconds) to the point's list: one, none or several.
  void (*collect)(const request_record& r, std::vector<double>& values);
  /// A completed request's one value (seconds) judged against --goodput; nullptr without goodput.
  double (*per_request)(const request_record& r);
};

/// Every latency metric, in the order the result's keys are written.
[[nodiscard]] const std::vector<latency_metric>& latency_metric_table();

/// The row named `name`; nullptr when none is.
[[nodiscard]] const latency_metric* find_latency_metric(std::string_view name);

/// Which rows a list of names covers.
enum class metric_use { any, slo, goodput };

/// The names of the rows usable as `use`, joined by `separator`, each followed by `suffix`
/// ("ttft, tpot, itl, e2el"; "ttft:MS tpot:MS e2el:MS").
[[nodiscard]] std::string latency_metric_names(metric_use use, std::string_view separator,
                                               std::string_view suffix = "");

/// Whether `slo` sets any objective.
[[nodiscard]] bool any_objective(const goodput_slo& slo);

/// Whether a completed request meets the --goodput objective of `metric` (true when unset).
[[nodiscard]] bool meets_objective(const latency_metric& metric, const request_record& r, const goodput_slo& slo);

/// A request's TPOT in seconds, (E2EL - TTFT) / (output tokens - 1); nullopt with one output token.
[[nodiscard]] std::optional<double> time_per_output_token(const request_record& r);

/// A request's time to its second token event, TTFT + the first gap between token events (the
/// wait before the stream goes on, which TTFT alone does not show); nullopt with one event.
[[nodiscard]] std::optional<double> time_to_second_token(const request_record& r);

}  // namespace ironbench::serve
