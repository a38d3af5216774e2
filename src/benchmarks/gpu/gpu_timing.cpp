#include "benchmarks/gpu/gpu_timing.hpp"

#include <algorithm>
#include <vector>

namespace ironbench::benchmarks {

core::timed_iterations gpu_event_timed(cudaStream_t stream, std::function<void()> untimed_before,
                                       std::function<void()> body) {
  return [stream, untimed_before = std::move(untimed_before), body = std::move(body)](std::size_t iterations) {
    std::vector<device::gpu_event> starts(iterations);
    std::vector<device::gpu_event> stops(iterations);
    for (std::size_t i = 0; i < iterations; ++i) {
      if (untimed_before) untimed_before();
      starts[i].record(stream);
      body();
      stops[i].record(stream);
    }
    double total = 0;
    for (std::size_t i = 0; i < iterations; ++i) total += device::elapsed_seconds(starts[i], stops[i]);
    return total;
  };
}

double gpu_median_seconds(cudaStream_t stream, const std::function<void()>& untimed_before,
                          const std::function<void()>& body, std::size_t warmup, std::size_t repetitions) {
  for (std::size_t i = 0; i < warmup; ++i) body();
  const auto timed = gpu_event_timed(stream, untimed_before, body);
  std::vector<double> samples;
  for (std::size_t i = 0; i < repetitions; ++i) samples.push_back(timed(1));
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace ironbench::benchmarks
