// A load point's steady state: the window in which the load it was asked for was in flight,
// after the ramp-up and before the drain, and the point's metrics over that window beside the
// whole point's (docs/serving-metrics.md, "Steady state").
//
// The window (times on the records' clock, seconds from the point's start):
// - closed loop (request rate inf with --max-concurrency C): from the moment C requests (or
//   all of them, when fewer) are first in flight at once, to the first end after the last
//   request was sent (from then on none replaces it: the drain);
// - on a schedule (a finite request rate, or a trace): from the first completed request's end
//   (until one request's latency has passed nothing leaves, so the number in flight only
//   climbs) to the first end after the last send.
// Requests sent all at once (rate inf, no --max-concurrency) have no steady state. Token
// times are counted in (start, end]: a token at the start belongs to the ramp.
//
// Latencies are those of the requests that were sent and ended inside the window; throughputs
// count what happened inside it: output tokens arriving in it (a request's tokens spread
// evenly over its token events, as the timeline counts them) and requests completed in it,
// divided by its length.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// How a point's load was made.
struct point_load {
  bool scheduled = false;       ///< a finite request rate or a trace's times (else a closed loop)
  std::size_t concurrency = 0;  ///< --max-concurrency; 0: unlimited
};

struct steady_window {
  double start_s = 0;
  double end_s = 0;
};

/// The window of `records` (see above), or nullopt with `why` set to the reason in one sentence.
[[nodiscard]] std::optional<steady_window> steady_state_window(const std::vector<request_record>& records,
                                                               const point_load& load, std::string& why);

/// The "steady_state" object of a point: {"start_s", "end_s", "duration_s", "rule", "requests"
/// (sent and ended inside), "completed", "output_tokens" (arrived inside), "output_throughput",
/// "request_throughput" (completions inside per second), the latency statistics
/// ({mean,median,std}_{ttft,tpot,itl,e2el}_ms and the selected percentiles) of the requests
/// inside}; without a window {"window": null, "reason"}.
[[nodiscard]] json steady_state_metrics(const std::vector<request_record>& records, const point_load& load,
                                        const metric_selection& selection);

}  // namespace ironbench::serve
