// When a point's client counts as having kept its schedule. A send that leaves late shifts
// every time measured from it; what matters is how late against the load: a few milliseconds
// are nothing beside 50 ms between arrivals and 600 ms end-to-end, and everything beside 1 ms
// gaps. So the p99 send lateness may reach the larger of an absolute floor (--max-lateness-ms,
// 1 ms by default) and what is small against the load: the smaller of a quarter of the mean
// gap between sends and 2 % of the median end-to-end latency (docs/serve-testing.md).
#pragma once

#include <string>

namespace ironbench::serve {

/// Share of the mean gap between sends, and of the median E2EL, that lateness may reach.
inline constexpr double lateness_share_of_gap = 0.25;
inline constexpr double lateness_share_of_e2el = 0.02;

/// The limit and how it was reached.
struct lateness_limit {
  double limit_ms = 0;
  std::string basis;  ///< "the floor 1 ms" or "25 % of the 20.0 ms mean gap between sends"
};

/// The p99 lateness a point may have. `mean_gap_ms` and `median_e2el_ms` are ignored where
/// not positive (one request; none completed).
[[nodiscard]] lateness_limit lateness_limit_for(double floor_ms, double mean_gap_ms, double median_e2el_ms);

}  // namespace ironbench::serve
