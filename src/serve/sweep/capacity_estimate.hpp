// A short estimate of a server's capacity, which seeds an SLO search instead of a fixed
// 1 request/s: a closed-loop burst (a fixed number of requests in flight, each completion
// sending the next) whose completion rate while every slot was busy is the estimate.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

struct capacity_estimate {
  bool ok = false;
  double requests_per_s = 0;  ///< completions per second while the burst was at full concurrency
  double max_e2el_s = 0;      ///< the longest completed request
  std::size_t completed = 0;  ///< requests of the burst that completed
  double window_s = 0;        ///< the time the rate was measured over
  std::string why;            ///< when not ok: why there is no estimate
};

/// The completion rate of a closed-loop burst's records: with t_1 <= ... <= t_m the completion
/// times up to the burst's last send (after which fewer requests are in flight), the
/// least-squares slope of the count i against t_i (requests finishing together, in batches,
/// make a staircase whose slope is the rate); with fewer than 3 such completions, all
/// completions / (last completion - first send). Not ok when no request completed.
[[nodiscard]] capacity_estimate estimate_capacity(const std::vector<request_record>& records);

/// The requests of the burst: enough for 8 rounds of `concurrency`.
[[nodiscard]] std::size_t estimate_requests(int concurrency);

}  // namespace ironbench::serve
