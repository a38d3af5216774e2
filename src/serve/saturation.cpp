#include "serve/saturation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ironbench::serve {

saturation_check detect_saturation(const std::vector<json>& points) {
  if (points.size() < 2) return {};
  const auto& last = points.back();
  const auto& previous = points[points.size() - 2];
  double best_before = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    best_before = std::max(best_before, points[i].value("output_throughput", 0.0));
  }
  const double throughput = last.value("output_throughput", 0.0);
  const double ttft = last.value("median_ttft_ms", 0.0), ttft_before = previous.value("median_ttft_ms", 0.0);
  if (best_before <= 0 || ttft_before <= 0) return {};
  const double gain = throughput / best_before - 1;
  const double growth = ttft / ttft_before;
  if (gain >= saturation_min_throughput_gain || growth < saturation_ttft_growth) return {};
  return {true, fmt::format("output {:.0f} tok/s, {:+.1f}% over the best before; median TTFT {:.0f} ms, {:.1f}x the "
                            "previous point's",
                            throughput, 100 * gain, ttft, growth)};
}

}  // namespace ironbench::serve
