// Where a point's time to first token goes, from the servers' own per-request histograms
// (engine_histogram_table: vLLM's request_queue_time_seconds, request_prefill_time_seconds,
// request_decode_time_seconds; SGLang's and TGI's queue time): each stage's increase over the
// point (the last scrape's histogram minus the first's), its mean (_sum / _count) and its
// percentiles interpolated inside the buckets, beside the client's TTFT and E2EL, and what the
// server does not account for: client TTFT - (queue + prefill) = network + client + anything
// before the engine's queue (an API server, a router). An engine without stage histograms
// but with stage-seconds counters (engine_stage_counter_table: llama.cpp's prompt and
// generation seconds) gives each stage's mean only: the counter's increase over the point
// divided by the requests the point completed. With roles (--metrics-url prefill=URL), one
// breakdown per role.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/metrics/metrics_scraper.hpp"

namespace ironbench::serve {

/// The percentiles reported of each stage (bucket-interpolated).
inline constexpr double ttft_breakdown_percentiles[] = {50, 90, 99};

struct ttft_breakdown {
  /// null when no URL published a stage histogram; else (docs/serving-metrics.md, "Where TTFT goes"):
  ///   {"method", "roles": {ROLE|"all": {"engine", "urls", STAGE: {"series", "requests",
  ///    "source" ("histogram" or "counter"), "mean_ms", and from a histogram "p50_ms", "p90_ms",
  ///    "p99_ms"}}}, "client_mean_ttft_ms",
  ///    "client_mean_e2el_ms", "client_mean_decode_ms" (E2EL - TTFT), "server_ttft_mean_ms"
  ///    (queue + prefill, summed over roles), "outside_server_mean_ms" (the difference)}
  json summary = nullptr;
  /// Flat keys (ms): server_[ROLE_]STAGE_time_{mean,p50,p90,p99}_ms, ttft_outside_server_mean_ms.
  std::map<std::string, double> values;
};

/// The breakdown of one point from its scrape rounds (in time order); `urls` and `roles` in
/// the order of the rounds' endpoints (roles empty or all "": one role, "all");
/// `completed_requests` divides a stage-seconds counter's increase.
[[nodiscard]] ttft_breakdown summarize_ttft_breakdown(const std::vector<scrape_round>& rounds,
                                                      const std::vector<std::string>& urls,
                                                      const std::vector<std::string>& roles, double client_mean_ttft_ms,
                                                      double client_mean_e2el_ms, double completed_requests);

/// The console lines of a breakdown (empty for a null summary).
[[nodiscard]] std::string ttft_breakdown_text(const json& summary);

}  // namespace ironbench::serve
