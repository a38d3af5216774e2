// serve-sim's Prometheus /metrics: the simulated engine's true state and counters in the text
// exposition format, under the names vLLM's V1 engine uses, so that a client's scraping can be
// checked against ground truth.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ironbench::serve {

/// A Prometheus histogram with fixed bucket bounds (seconds).
struct sim_histogram {
  static constexpr std::array<double, 8> bounds = {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60};
  std::array<std::uint64_t, bounds.size()> buckets{};  ///< observations <= each bound (not cumulative)
  std::uint64_t count = 0;
  double sum = 0;
  void add(double seconds);
};

/// What the server has counted since it started.
struct sim_counters {
  std::int64_t prompt_tokens = 0;      ///< of requests that got their first token
  std::int64_t generation_tokens = 0;  ///< tokens emitted
  std::int64_t prefix_queries = 0;     ///< prompt tokens looked up in the (absent) prefix cache
  std::uint64_t succeeded = 0;         ///< requests finished
  sim_histogram e2e_latency;           ///< arrival to last token, of finished requests
};

/// The state shown at one scrape.
struct sim_metrics_state {
  std::string model;
  std::size_t running = 0, waiting = 0;
  double kv_usage = 0;  ///< 0..1
  sim_counters counters;
};

/// The /metrics answer: vllm:num_requests_running / _waiting, vllm:kv_cache_usage_perc,
/// vllm:prompt_tokens_total, vllm:generation_tokens_total, vllm:num_preemptions_total (0),
/// vllm:prefix_cache_queries_total / _hits_total (0 hits), vllm:request_success_total and the
/// histogram vllm:e2e_request_latency_seconds, labelled {engine="0",model_name=...}.
[[nodiscard]] std::string sim_metrics_text(const sim_metrics_state& state);

/// A label value escaped as the exposition format wants it (\\, \" and \n).
[[nodiscard]] std::string escape_label_value(const std::string& value);

}  // namespace ironbench::serve
