// The GPUs behind a serving point read from their telemetry exporters over the network
// (--gpu-metrics-url: NVIDIA's DCGM exporter, AMD's device metrics exporter; the schema is
// gpu_exporter_metrics.hpp): per GPU its mean power, utilisation and clocks and its highest
// memory use over the point, and the point's energy with its validity verdict
// (point_energy.hpp: the share of the point the scrapes cover, the largest gap), so that
// energy per output token works when the client is not on the GPU node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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

/// The bounds that keep a hostile or mistaken exporter (one that answers 30 MB of series at
/// every scrape, or invents thousands of GPUs) from filling memory, time and the result file;
/// docs/reliability.md ("GPU exporters") gives them. An exporter serves one node: the largest
/// answer a real one gives is under a megabyte (DCGM's with every field for 8 GPUs, Kubernetes
/// labels included), for at most 16 GPUs.
namespace exporter_limits {
/// One answer's bytes (after decompression) and sample lines, of every series, read or not.
inline constexpr std::size_t answer_bytes = std::size_t{16} << 20;
inline constexpr std::size_t sample_lines = 100000;
/// GPUs one URL's answer may describe.
inline constexpr std::size_t gpus_per_url = 256;
/// Energy samples kept per GPU: beyond, every other one is dropped and only every second
/// later round kept (a sample then covers twice as long), so a point of any length keeps at
/// most this many; the running statistics (means, maxima) still see every round.
inline constexpr std::size_t samples_per_gpu = 4096;
/// Above this mean power over the covered time (or a power sample above it) a GPU's energy is
/// not a GPU's: the largest boards draw about 1.4 kW (B300, MI355X).
inline constexpr double max_gpu_power_w = 5000;
}  // namespace exporter_limits

/// The scrape settings of --gpu-metrics-url: only the series the schema reads are parsed and
/// kept, and answers beyond exporter_limits (bytes, sample lines, GPUs) are refused, that URL
/// not asked again during the point.
[[nodiscard]] scrape_settings gpu_exporter_scrape_settings(scrape_settings base);

/// The exporters' answers of one point gathered round by round in bounded memory: per GPU its
/// running statistics and at most exporter_limits::samples_per_gpu energy samples.
class remote_gpu_history {
 public:
  remote_gpu_history(std::vector<std::string> urls, double interval_s);
  ~remote_gpu_history();
  remote_gpu_history(const remote_gpu_history&) = delete;
  remote_gpu_history& operator=(const remote_gpu_history&) = delete;

  /// Adds one round (the scraper's on_round).
  void add(const scrape_round& round);

  /// The summary of the point: its window from `origin_monotonic_ns` for `duration_s`; a
  /// sample covers up to twice the interval (times the thinning's stride).
  [[nodiscard]] remote_gpu_telemetry summarize(std::int64_t origin_monotonic_ns, double duration_s,
                                               double output_tokens) const;

  /// The energy samples kept for the GPU `key` (tests).
  [[nodiscard]] std::size_t kept_samples(const std::string& key) const;

 private:
  struct gpu;
  std::vector<std::string> urls_;
  double interval_s_;
  std::size_t rounds_ = 0, failed_ = 0;
  std::string error_;
  std::int64_t base_ns_ = 0;  ///< the first round's time: samples are seconds from it
  std::vector<std::string> order_;
  std::map<std::string, std::unique_ptr<gpu>> gpus_;
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
