// Timing of GPU work with events, the way triton's do_bench does it: before every repetition
// an untimed step (a cache flush), then the repetition between two events.
#pragma once

#include <cstddef>
#include <functional>

#include "core/measurement.hpp"
#include "device/gpu/gpu_stream.hpp"

namespace ironbench::benchmarks {

/// timed_iterations over `body` on `stream`: each repetition runs `untimed_before` (may be
/// empty), records an event, runs `body`, records an event; the result is the sum of the
/// event intervals.
[[nodiscard]] core::timed_iterations gpu_event_timed(cudaStream_t stream, std::function<void()> untimed_before,
                                                     std::function<void()> body);

/// Median seconds of `repetitions` event-timed runs of `body` (after `warmup` untimed runs).
[[nodiscard]] double gpu_median_seconds(cudaStream_t stream, const std::function<void()>& untimed_before,
                                        const std::function<void()>& body, std::size_t warmup, std::size_t repetitions);

}  // namespace ironbench::benchmarks
