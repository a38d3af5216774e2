// One reading of a GPU's sensors. Every field is optional: a library or a GPU that does not
// report a value leaves it empty, and summaries skip it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ironbench::telemetry {

struct gpu_sample {
  double time_s = 0;                          ///< seconds since the sampler started
  std::optional<double> utilization_percent;  ///< share of time a kernel was running
  std::optional<double> memory_used_bytes;
  std::optional<double> power_w;       ///< board power (NVML) or socket power (AMD)
  std::optional<double> energy_j;      ///< cumulative energy counter
  std::optional<double> sm_clock_mhz;  ///< SM / shader (sclk) clock
  std::optional<double> memory_clock_mhz;
  std::optional<double> temperature_c;            ///< GPU core (NVIDIA) or junction (AMD)
  std::optional<std::uint64_t> throttle_reasons;  ///< NVML clock event reason bits
};

/// Names of the set bits of an NVML clock event ("throttle") reason mask: "gpu_idle",
/// "sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", ...; unknown bits as "bit_N".
[[nodiscard]] std::vector<std::string> throttle_reason_names(std::uint64_t mask);

}  // namespace ironbench::telemetry
