#include "serve/sweep/saturation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ironbench::serve {

saturation_check detect_saturation(const std::vector<json>& points) {
  if (points.size() < 2) return {};
  const auto& last = points.back();
  const auto& previous = points[points.size() - 2];
  // A pooling point (embeddings, rerank, score) has no tokens out and no first token: its
  // throughput is inputs per second and its wait the whole request's latency.
  const bool pooled = !last.contains("output_throughput") && last.contains("median_e2el_ms");
  const char* throughput_key =
      pooled ? (last.contains("inputs_throughput") ? "inputs_throughput" : "request_throughput") : "output_throughput";
  const char* wait_key = pooled ? "median_e2el_ms" : "median_ttft_ms";
  double best_before = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    best_before = std::max(best_before, points[i].value(throughput_key, 0.0));
  }
  const double throughput = last.value(throughput_key, 0.0);
  const double wait = last.value(wait_key, 0.0), wait_before = previous.value(wait_key, 0.0);
  if (best_before <= 0 || wait_before <= 0) return {};
  const double gain = throughput / best_before - 1;
  const double growth = wait / wait_before;
  if (gain >= saturation_min_throughput_gain || growth < saturation_ttft_growth) return {};
  if (pooled) {
    return {true, fmt::format("{:.0f} {}/s, {:+.1f}% over the best before; median latency {:.0f} ms, {:.1f}x the "
                              "previous point's",
                              throughput, throughput_key == std::string("inputs_throughput") ? "inputs" : "requests",
                              100 * gain, wait, growth)};
  }
  return {true, fmt::format("output {:.0f} tok/s, {:+.1f}% over the best before; median TTFT {:.0f} ms, {:.1f}x the "
                            "previous point's",
                            throughput, 100 * gain, wait, growth)};
}

}  // namespace ironbench::serve
