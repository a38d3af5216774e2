// Saturation in a sweep of rising load: the server is saturated once more offered load no
// longer buys throughput while requests wait longer for their first token. A sweep stops
// there (the points beyond would only measure a queue), and says so.
#pragma once

#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::serve {

/// Output throughput must rise by at least this share over the best point before...
inline constexpr double saturation_min_throughput_gain = 0.05;
/// ...unless median TTFT has not grown by this factor over the previous point.
inline constexpr double saturation_ttft_growth = 1.5;

struct saturation_check {
  bool saturated = false;
  std::string reason;  ///< "output 1510 tok/s, +1.2% over the best before; median TTFT 480 ms, 3.1x the previous"
};

/// Whether the last of `points` (vLLM result objects of one sweep axis, in rising load) is
/// saturated: its output throughput is less than 5 % above the best of the points before it
/// while its median TTFT is at least 1.5 times the previous point's (a pooling point: inputs/s,
/// else requests/s, and median latency). Needs two points.
[[nodiscard]] saturation_check detect_saturation(const std::vector<json>& points);

}  // namespace ironbench::serve
