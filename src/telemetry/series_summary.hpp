// Telemetry of one case in the results: each sample as JSON, and the case's summary (mean
// and max of every sensor, energy used, clock-limiting reasons seen).
#pragma once

#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "telemetry/gpu_sample.hpp"

namespace ironbench::telemetry {

/// {"t_s": 0.05, "sm_clock_mhz": 1980, ...}: the fields the sample has.
[[nodiscard]] json to_json(const gpu_sample& sample);

/// {"samples": N, "duration_s": ..., "sm_clock_mhz": {"mean": .., "max": ..}, ...,
///  "energy_used_j": last - first energy counter, "throttle_reasons": ["sw_power_cap", ...]}.
[[nodiscard]] json summarize(const std::vector<gpu_sample>& samples);

/// The samples taken from `begin_s` to `end_s` (seconds on the samples' own clock), in order.
[[nodiscard]] std::vector<gpu_sample> samples_within(const std::vector<gpu_sample>& samples, double begin_s,
                                                     double end_s);

/// Metrics a case reports from its telemetry: mean SM clock, mean and max power, max
/// temperature, energy used (those the samples have).
[[nodiscard]] std::vector<core::metric> telemetry_metrics(const std::vector<gpu_sample>& samples);

}  // namespace ironbench::telemetry
