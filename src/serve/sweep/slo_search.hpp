// Finding the limit: the highest request rate (or concurrency) at which a server still meets
// its service-level objectives, by a bounded search of load points ("maximum throughput under
// 30 ms ITL"). The search itself knows nothing of HTTP: it asks a probe function to measure a
// load and say whether the objectives held, so it is tested against a model.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// One objective: `statistic` of `metric` at most `max_ms`.
struct slo_limit {
  std::string metric;  ///< ttft, tpot, itl or e2el
  double max_ms = 0;
};

/// --slo ttft:MS,tpot:MS,itl:MS,e2el:MS[,STATISTIC]: every limit must hold, judged on one
/// statistic (p99 by default; pNN, median or mean), and no request may fail.
struct slo_spec {
  std::vector<slo_limit> limits;
  std::string statistic = "p99";

  [[nodiscard]] bool empty() const { return limits.empty(); }
  /// "p99 ttft <= 500 ms, p99 tpot <= 30 ms"
  [[nodiscard]] std::string text() const;
};

/// Parses --slo; usage_error naming the item that is wrong.
[[nodiscard]] slo_spec parse_slo(const std::string& text);

/// The metrics and percentiles a point must report for `slo` to be judged (added to `selection`).
void require_slo_metrics(const slo_spec& slo, metric_selection& selection);

/// Whether a point's vLLM metrics (serving_metrics) meet `slo`; `why` names the first limit
/// broken ("p99 tpot 33.2 ms > 30 ms", "3 requests failed"), empty when met.
struct slo_verdict {
  bool met = false;
  std::string why;
};
[[nodiscard]] slo_verdict judge_slo(const json& metrics, const slo_spec& slo);

enum class search_axis { rate, concurrency };

/// rate or concurrency; usage_error otherwise.
[[nodiscard]] search_axis parse_search_axis(const std::string& text);

struct search_settings {
  search_axis axis = search_axis::rate;
  double start = 1;         ///< the first load probed (requests/s, or requests in flight)
  double max = 1024;        ///< never probes above this
  double precision = 0.05;  ///< rate: stop when the failing load is within this share above the passing one
  int max_probes = 16;      ///< at most this many points
  /// rate: start at the capacity estimate's rate instead of `start` (false once --search-start is given).
  bool start_from_estimate = true;
  /// Probes are bounded by time (search_plan.hpp): about this long of requests at the probe's
  /// load, at least min_probe_requests and at most max_probe_requests (0: no cap; an explicit
  /// --num-prompts).
  double probe_duration_s = 60;
  std::int64_t min_probe_requests = 50;
  std::int64_t max_probe_requests = 0;
  /// The capacity estimate (capacity_estimate.hpp): a closed-loop burst of this many requests
  /// in flight, for at most this long.
  int estimate_concurrency = 32;
  double estimate_duration_s = 10;
};

/// Checks a search's settings; usage_error naming the flag (--search-start, --search-max,
/// --search-precision, --search-max-probes, --search-probe-duration, --search-min-requests,
/// --search-estimate-concurrency, --search-estimate-duration).
void check_search_settings(const search_settings& settings);

/// What a probe measured.
struct probe_outcome {
  bool measured = true;  ///< false: interrupted, or the point could not be judged (client too late)
  bool met = false;
  std::string why;           ///< why not met / not measured
  bool interrupted = false;  ///< with measured false: stopped (Ctrl-C), which ends the search
};

/// How a search ended: a judged answer (the highest load that met the objectives), every load
/// probed missed them (the lowest judged, and missed), or no answer can be given because the
/// lowest load probed could not be judged; or it was interrupted.
enum class search_verdict { found, missed, unjudged, interrupted };

/// "found", "missed", "could not judge", "interrupted" (the JSON's slo_search.outcome).
[[nodiscard]] const char* to_string(search_verdict verdict);

struct search_step {
  double load = 0;
  probe_outcome outcome;
};

struct search_result {
  std::vector<search_step> probes;        ///< in the order probed
  std::optional<double> best;             ///< the highest load that met the objectives
  std::optional<double> lowest_failing;   ///< the lowest load that did not
  std::optional<double> lowest_unjudged;  ///< the lowest load whose probe could not be judged
  std::string ended;                      ///< why the search stopped: "bracketed within 5%", "reached --search-max" ...
  search_verdict verdict = search_verdict::missed;
};

/// Doubles the load from `start` until the objectives break (halving instead when the start
/// already breaks them), then bisects between the last load that met them and the first that
/// did not until they are within `precision` (concurrency: adjacent whole numbers), within
/// `max_probes` points. A probe that could not be judged (measured false: the client fell
/// behind) is neither met nor missed: the search treats its load as a ceiling it cannot see
/// past and goes on below it (halving, or bisecting between the last load met and it), so it
/// ends on a judged answer where a lower load can be judged, and with verdict unjudged (never
/// missed) where the lowest load probed could not be. Stops at once when interrupted.
[[nodiscard]] search_result search_limit(const search_settings& settings,
                                         const std::function<probe_outcome(double load)>& probe);

}  // namespace ironbench::serve
