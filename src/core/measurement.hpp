// The measurement loop: time-based warm-up, then repetitions until a stopping rule holds.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/statistics.hpp"

namespace ironbench::core {

/// How long and how often a case is measured. Every field can be set from the command line.
struct measurement_settings {
  double warmup_s = 0.1;            ///< run untimed for at least this long before timing
  std::size_t min_warmup_reps = 1;  ///< and at least this many repetitions
  std::size_t min_reps = 5;         ///< never stop with fewer timed samples
  std::size_t max_reps = 1000;      ///< stop after this many samples
  double min_time_s = 0.5;          ///< measure at least this long before stopping on noise
  double max_time_s = 3.0;          ///< stop after this long (once min_reps are taken)
  double target_cv = 0.01;          ///< stop when stddev/mean of the samples is at or below this
  double min_sample_s = 100e-6;     ///< batch repetitions so each sample lasts at least this
  double unstable_cv = 0.5;         ///< mark a measured case unstable above this CV (case_stability.hpp); 0: never
};

enum class stop_reason { target_noise, max_time, max_reps, cancelled };

[[nodiscard]] const char* to_string(stop_reason reason);

/// Runs `iterations` repetitions of the measured work and returns how long they took in
/// seconds, measured however suits the device (host clock, device events).
using timed_iterations = std::function<double(std::size_t iterations)>;

/// What a measurement produced.
struct measurement {
  std::vector<double> samples_s;  ///< seconds per repetition, one entry per sample
  std::size_t batch = 1;          ///< repetitions per sample
  std::size_t warmup_reps = 0;
  double warmup_s = 0;
  std::size_t total_iterations = 0;  ///< every repetition run, warm-up included
  stop_reason stop = stop_reason::max_reps;
  summary time_s;  ///< statistics of samples_s
};

/// Measures `work` under `settings`. `cancel`, when set, ends the loop early (the samples so
/// far are kept and the stop reason says so).
[[nodiscard]] measurement run_measurement(const measurement_settings& settings, const timed_iterations& work,
                                          const std::atomic<bool>* cancel = nullptr);

/// Host-clock timing of a synchronous body: wraps `body` into timed_iterations.
[[nodiscard]] timed_iterations host_timed(std::function<void()> body);

}  // namespace ironbench::core
