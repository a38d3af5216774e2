#include "core/case_cost.hpp"

#include <algorithm>
#include <cmath>

namespace ironbench::core {

std::size_t batch_for(double repetition_s, double min_sample_s) {
  if (!(repetition_s > 0) || repetition_s >= min_sample_s) return 1;
  return static_cast<std::size_t>(std::ceil(min_sample_s / repetition_s * (1 - 1e-9)));
}

double estimated_case_seconds(const case_cost& cost, const measurement_settings& settings) {
  const double fixed = std::max(0.0, cost.setup_s) + std::max(0.0, cost.verify_s);
  if (!cost.measures) return fixed;
  const double rep = std::max(0.0, cost.repetition_s);
  const double untimed = std::max(0.0, cost.untimed_per_sample_s);
  if (rep <= 0) {
    // Unknown repetitions: the loop ends by max_time (min_reps of them could take longer, which
    // cannot be known), after its warm-up.
    return fixed + settings.warmup_s + settings.max_time_s + untimed;
  }
  std::size_t min_reps = settings.min_reps;
  if (cost.aimed_reps > 0) {
    std::size_t fit = cost.aimed_reps;
    if (settings.max_time_s / rep < static_cast<double>(cost.aimed_reps)) {
      fit = static_cast<std::size_t>(settings.max_time_s / rep);
    }
    min_reps = std::max(min_reps, fit);
  }
  const std::size_t max_reps = std::max(settings.max_reps, min_reps);
  const std::size_t batch = cost.batched ? batch_for(rep, settings.min_sample_s) : 1;
  const double sample = static_cast<double>(batch) * rep + untimed;
  const double warmup = std::max(
      settings.warmup_s, static_cast<double>(std::max<std::size_t>(settings.min_warmup_reps, 1)) * (rep + untimed));
  const double by_reps = static_cast<double>(max_reps) * sample;
  const double by_time = std::max(static_cast<double>(min_reps) * sample, settings.max_time_s + sample);
  return fixed + warmup + std::min(by_reps, by_time);
}

}  // namespace ironbench::core
