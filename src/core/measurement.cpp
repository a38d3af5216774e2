#include "core/measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point start) { return std::chrono::duration<double>(clock::now() - start).count(); }

bool cancelled(const std::atomic<bool>* cancel) { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }

// Running mean and variance (Welford), so the stopping rule costs O(1) per sample.
struct running_noise {
  std::size_t n = 0;
  double mean = 0;
  double m2 = 0;
  void add(double x) {
    ++n;
    const double delta = x - mean;
    mean += delta / static_cast<double>(n);
    m2 += delta * (x - mean);
  }
  [[nodiscard]] double cv() const {
    if (n < 2 || mean == 0.0) return 0.0;
    return std::sqrt(m2 / static_cast<double>(n - 1)) / mean;
  }
};

}  // namespace

const char* to_string(stop_reason reason) {
  switch (reason) {
    case stop_reason::target_noise: return "target_noise";
    case stop_reason::max_time: return "max_time";
    case stop_reason::max_reps: return "max_reps";
    case stop_reason::cancelled: return "cancelled";
  }
  return "unknown";
}

measurement run_measurement(const measurement_settings& settings, const timed_iterations& work,
                            const std::atomic<bool>* cancel) {
  IRONBENCH_CHECK(settings.min_reps >= 1 && settings.max_reps >= settings.min_reps,
                  "measurement needs 1 <= min_reps <= max_reps");
  measurement result;

  // Warm-up by time and count; its repetitions also estimate the cost of one repetition.
  double fastest = 0.0;
  const auto warmup_start = clock::now();
  while (!cancelled(cancel)) {
    const double elapsed = work(1);
    fastest = result.warmup_reps == 0 ? elapsed : std::min(fastest, elapsed);
    ++result.warmup_reps;
    if (result.warmup_reps >= settings.min_warmup_reps && seconds_since(warmup_start) >= settings.warmup_s) {
      break;
    }
  }
  result.warmup_s = seconds_since(warmup_start);
  result.total_iterations = result.warmup_reps;
  if (fastest > 0.0 && fastest < settings.min_sample_s) {
    // (1 - 1e-9): 1e-4 / 1e-6 is 100.00000000000001 in binary floating point, not 101.
    result.batch = static_cast<std::size_t>(std::ceil(settings.min_sample_s / fastest * (1 - 1e-9)));
  }

  running_noise noise;
  const auto start = clock::now();
  while (true) {
    if (cancelled(cancel)) {
      result.stop = stop_reason::cancelled;
      break;
    }
    const double sample = work(result.batch) / static_cast<double>(result.batch);
    result.total_iterations += result.batch;
    result.samples_s.push_back(sample);
    noise.add(sample);
    const auto n = result.samples_s.size();
    const double elapsed = seconds_since(start);
    if (n >= settings.max_reps) {
      result.stop = stop_reason::max_reps;
      break;
    }
    if (n < settings.min_reps) continue;
    if (elapsed >= settings.min_time_s && noise.cv() <= settings.target_cv) {
      result.stop = stop_reason::target_noise;
      break;
    }
    if (elapsed >= settings.max_time_s) {
      result.stop = stop_reason::max_time;
      break;
    }
  }
  result.time_s = summarize(result.samples_s);
  return result;
}

timed_iterations host_timed(std::function<void()> body) {
  return [body = std::move(body)](std::size_t iterations) {
    const auto start = clock::now();
    for (std::size_t i = 0; i < iterations; ++i) body();
    return seconds_since(start);
  };
}

}  // namespace ironbench::core
