// The GPUs behind a serving point read from their telemetry exporters over the network
// (--gpu-metrics-url: NVIDIA's DCGM exporter, AMD's device metrics exporter; the schema is
// gpu_exporter_metrics.hpp): per GPU its mean power, utilisation and clocks and its highest
// memory use over the point, and the point's energy with its validity verdict
// (point_energy.hpp: the share of the point the scrapes cover, the largest gap), so that
// energy per output token works when the client is not on the GPU node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "serve/metrics/metrics_scraper.hpp"

namespace ironbench::serve {

struct remote_gpu_telemetry {
  /// {"urls", "interval_s", "scrapes", "failed_scrapes", "error" (the first failure),
  ///  "gpus": {KEY: {"exporter", "hostname", "index", "uuid", "model", "samples", "power_w_mean",
  ///   "utilization_percent_mean", "memory_used_max_bytes", "memory_free_min_bytes",
  ///   "sm_clock_mhz_mean", "memory_clock_mhz_mean", "energy": {"energy_j", "covered_energy_j",
  ///   "source", "coverage", "largest_gap_s", "valid", "invalid_reason"}}},
  ///  and add_energy_verdict's keys (energy_j, energy_coverage, energy_valid, ...)}.
  /// KEY is "HOST/INDEX", prefixed with the URL's index ("1:") when there are several URLs.
  json summary = nullptr;
  /// gpu_power_w, gpu_utilization_percent, gpu_memory_used_max_gib and, with valid energy,
  /// gpu_energy_j, joules_per_output_token, output_tokens_per_joule.
  std::vector<core::metric> metrics;
};

/// The summary of one point: `rounds` of the exporters' URLs, the point's window from
/// `origin_monotonic_ns` for `duration_s`; a sample covers up to twice `interval_s`.
[[nodiscard]] remote_gpu_telemetry summarize_remote_gpus(const std::vector<scrape_round>& rounds,
                                                         const std::vector<std::string>& urls,
                                                         std::int64_t origin_monotonic_ns, double duration_s,
                                                         double interval_s, double output_tokens);

/// The console line(s) of a summary: power, energy and its verdict.
[[nodiscard]] std::string remote_gpu_text(const json& summary);

}  // namespace ironbench::serve
