// When each request is sent: an absolute schedule computed before the run (so a slow client
// shows up as lateness against it, instead of silently lowering the rate), as vLLM's
// `bench serve` draws it: gaps from a gamma distribution with shape = burstiness and mean
// 1 / rate (burstiness 1 is a Poisson process; smaller is burstier), the first request at 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ironbench::serve {

/// The longest a point's schedule may run: its last send at most 7 days after its first. A
/// longer one cannot be meant (a rate of 1e-300 requests/s, a trace slowed 1e300 times or
/// with a time of 10^18 ms): the run would wait for ever, its ETA growing.
inline constexpr double max_schedule_s = 7 * 24 * 3600.0;

/// usage_error when the last of `times` (seconds from the first send) is beyond
/// max_schedule_s (or not a number); `what` names the setting that made it ("--request-rate 1e-300").
void check_schedule_span(const std::vector<double>& times, const std::string& what);

/// Send times in seconds from the start for `count` requests. An infinite `rate` sends every
/// request at 0 (the concurrency limit then paces them). usage_error when the schedule would
/// outlast max_schedule_s (check_schedule_span).
[[nodiscard]] std::vector<double> arrival_times(std::size_t count, double rate, double burstiness, std::uint64_t seed);

}  // namespace ironbench::serve
