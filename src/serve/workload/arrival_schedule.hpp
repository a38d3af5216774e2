// When each request is sent: an absolute schedule computed before the run (so a slow client
// shows up as lateness against it, instead of silently lowering the rate), as vLLM's
// `bench serve` draws it: gaps from a gamma distribution with shape = burstiness and mean
// 1 / rate (burstiness 1 is a Poisson process; smaller is burstier), the first request at 0.
//
// A ramp-up (vLLM's --ramp-up-strategy linear|exponential with --ramp-up-start-rps A and
// --ramp-up-end-rps B) raises the rate from A to B over the point:
// - a point of N requests (vLLM's rule): the gap after request i is drawn at the rate of its
//   progress i / (N - 1), A + (B - A) p (linear) or A (B / A)^p (exponential);
// - a point bounded by time D (--duration): the rate at time t is that of progress t / D, and
//   the arrivals are a gamma renewal process in the ramp's own clock (its expected arrivals
//   Λ(t), the integral of the rate): unit-mean gaps u, each arrival at Λ⁻¹(u). With
//   burstiness 1 the arrivals are a Poisson process of that rate, and their count in [0, t]
//   is Poisson with mean Λ(t).
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

enum class ramp_strategy { none, linear, exponential };

/// A ramp-up of the request rate from start_rps to end_rps over a point.
struct ramp_up {
  ramp_strategy strategy = ramp_strategy::none;
  double start_rps = 0;
  double end_rps = 0;
  [[nodiscard]] bool enabled() const { return strategy != ramp_strategy::none; }
};

/// "linear" or "exponential"; usage_error naming --ramp-up-strategy otherwise.
[[nodiscard]] ramp_strategy parse_ramp_strategy(const std::string& text);
/// "linear", "exponential" or "none".
[[nodiscard]] const char* to_string(ramp_strategy strategy);

/// usage_error unless `ramp` is one a schedule can follow: both rates positive and finite
/// (a rate of 0 would never send the next request), start at most end.
void check_ramp_up(const ramp_up& ramp);

/// The ramp's rate at `progress` (0: start_rps, 1: end_rps; clamped to [0, 1]).
[[nodiscard]] double ramp_rate(const ramp_up& ramp, double progress);

/// The arrivals a ramp over `duration_s` expects in [0, t] (Λ(t); t beyond the duration: the
/// end rate goes on).
[[nodiscard]] double ramp_expected_arrivals(const ramp_up& ramp, double duration_s, double t);

/// vLLM's ramp over `count` requests (see above), the first at 0. usage_error when the
/// schedule would outlast max_schedule_s.
[[nodiscard]] std::vector<double> ramp_arrival_times(std::size_t count, const ramp_up& ramp, double burstiness,
                                                     std::uint64_t seed);

/// A point bounded by time: the send times in [0, duration_s), at most `cap` of them, at
/// `rate` (inf: all `cap` at 0, the concurrency limit pacing them), or following `ramp` over
/// the duration when it is enabled. The first `k` times do not depend on `cap` (the same seed
/// gives the same schedule, cut where the cap falls).
[[nodiscard]] std::vector<double> timed_arrival_times(double duration_s, std::size_t cap, double rate,
                                                      const ramp_up& ramp, double burstiness, std::uint64_t seed);

}  // namespace ironbench::serve
