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
  std::int64_t prefix_queries = 0;     ///< prompt tokens looked up in the prefix cache
  std::int64_t prefix_hits = 0;        ///< of those, tokens found there (not prefilled)
  std::uint64_t succeeded = 0;         ///< requests finished
  sim_histogram e2e_latency;           ///< arrival to last token, of finished requests
  // Observed when a request finishes, as vLLM's V1 engine does:
  sim_histogram queue_time;    ///< arrival to the start of the step that admitted it
  sim_histogram prefill_time;  ///< that step's start to the first token
  sim_histogram decode_time;   ///< first token to last token
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
/// vllm:prefix_cache_queries_total / _hits_total (as vLLM counts them: prompt tokens of requests
/// that got their first token, and of those the tokens found in the cache), vllm:request_success_total and the
/// histograms vllm:e2e_request_latency_seconds, vllm:request_queue_time_seconds,
/// vllm:request_prefill_time_seconds and vllm:request_decode_time_seconds, labelled
/// {engine="0",model_name=...}.
[[nodiscard]] std::string sim_metrics_text(const sim_metrics_state& state);

/// serve-sim's stand-in GPU telemetry exporter (GET /gpu-metrics): GPUs at a known constant
/// power, so that energy per output token can be checked against the truth.
struct sim_gpu_exporter {
  std::string kind;  ///< "dcgm" (NVIDIA's DCGM exporter names) or "amd" (AMD's); "": none
  int gpus = 1;      ///< GPUs exported, each at power_w
  double power_w = 0;
  /// > 0: the exporter answers HTTP 503 from this many seconds after the first completion
  /// request on (an exporter that stops mid-point)
  double stop_after_s = 0;
};

/// The exporter's answer `seconds` after the server started: per GPU its power, its energy
/// counter (power_w x seconds, in the exporter's unit: mJ for DCGM, uJ for AMD), utilisation
/// (100 while `busy`), memory used (`memory_used_fraction` of 80 GiB) and free, SM and memory
/// clocks, labelled as the exporter labels them (hostname "serve-sim").
[[nodiscard]] std::string sim_gpu_exporter_text(const sim_gpu_exporter& exporter, double seconds, bool busy,
                                                double memory_used_fraction);

/// A label value escaped as the exposition format wants it (\\, \" and \n).
[[nodiscard]] std::string escape_label_value(const std::string& value);

}  // namespace ironbench::serve
