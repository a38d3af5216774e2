// What one case costs in wall time, modelled before it runs: the run's time estimate, its
// --time-limit check, each case's time limit (a hung device) and the stand-in GPUs use it.
#pragma once

#include <cstddef>

#include "core/measurement.hpp"
#include "core/result.hpp"

namespace ironbench::core {

/// The parts of a case's wall time a benchmark can predict from its parameters and device.
/// Times in seconds. The timed part is not given: it follows from `repetition_s` and the
/// measurement settings (estimated_case_seconds).
struct case_cost {
  double setup_s = 0.5;  ///< before the measurement: allocation, filling, an algorithm search
  /// One timed repetition; 0 when it cannot be predicted (the timed part is then bounded by
  /// max_time, which ends every measurement that has its minimum repetitions).
  double repetition_s = 0;
  /// Wall time each sample spends outside the timed region: a cache flush, reading events.
  double untimed_per_sample_s = 0;
  double verify_s = 0;  ///< after the measurement: copying back, checking
  /// Timed repetitions the benchmark aims for within max_time (GPU GEMM: 200), never fewer
  /// than min_reps; 0: the settings' min_reps.
  std::size_t aimed_reps = 0;
  bool batched = true;    ///< whether repetitions shorter than min_sample_s are batched
  work_declaration work;  ///< the work of one repetition, as the benchmark declares it
  /// false: the case skips itself when it runs (a combination the device or library lacks):
  /// it costs its setup_s and nothing more.
  bool measures = true;
};

/// Seconds one case of `cost` takes at most under `settings`, by the measurement loop's rules
/// (measurement.hpp): setup, the warm-up (warmup_s, at least one repetition), the timed
/// samples until max_reps or until max_time has passed with min_reps taken (max_time plus one
/// sample when the repetition is unknown; a stop on the noise target only ends it earlier),
/// and the verification. Never negative.
[[nodiscard]] double estimated_case_seconds(const case_cost& cost, const measurement_settings& settings);

/// Repetitions per sample for a repetition of `repetition_s`: enough to last min_sample_s
/// (as the measurement loop batches them), 1 for long or unknown repetitions.
[[nodiscard]] std::size_t batch_for(double repetition_s, double min_sample_s);

}  // namespace ironbench::core
