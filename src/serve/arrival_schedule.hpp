// When each request is sent: an absolute schedule computed before the run (so a slow client
// shows up as lateness against it, instead of silently lowering the rate), as vLLM's
// `bench serve` draws it: gaps from a gamma distribution with shape = burstiness and mean
// 1 / rate (burstiness 1 is a Poisson process; smaller is burstier), the first request at 0.
#pragma once

#include <cstdint>
#include <vector>

namespace ironbench::serve {

/// Send times in seconds from the start for `count` requests. An infinite `rate` sends every
/// request at 0 (the concurrency limit then paces them).
[[nodiscard]] std::vector<double> arrival_times(std::size_t count, double rate, double burstiness, std::uint64_t seed);

}  // namespace ironbench::serve
