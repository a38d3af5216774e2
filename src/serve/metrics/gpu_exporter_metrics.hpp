// GPU telemetry exporters' /metrics in one schema per GPU: NVIDIA's DCGM exporter
// (DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, DCGM_FI_DEV_GPU_UTIL,
// DCGM_FI_DEV_FB_USED / _FREE, DCGM_FI_DEV_SM_CLOCK, DCGM_FI_DEV_MEM_CLOCK) and AMD's device
// metrics exporter (gpu_power_usage, gpu_energy_consumed, gpu_gfx_activity, gpu_used_vram /
// gpu_free_vram, gpu_clock{clock_type}), so that a client off the GPU node can read the
// server's power and energy. Units are converted to W, J, %, bytes and MHz. Adding an
// exporter or a renamed series is one row of the table in the .cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/metrics/prometheus_text.hpp"

namespace ironbench::serve {

/// One GPU as one exporter answer described it.
struct exporter_gpu {
  std::string key;       ///< "HOST/INDEX" (or "INDEX" without a host label): the GPU's identity
  std::string exporter;  ///< dcgm or amd
  std::string hostname, index, uuid, model;
  std::optional<double> power_w;              ///< instantaneous board power
  std::optional<double> energy_j;             ///< the energy counter (since the driver or boot)
  std::optional<double> utilization_percent;  ///< DCGM GPU_UTIL, AMD GFX activity
  std::optional<double> memory_used_bytes, memory_free_bytes;
  std::optional<double> sm_clock_mhz, memory_clock_mhz;
};

/// Every GPU of one exporter answer, in the order first seen.
struct exporter_reading {
  std::vector<exporter_gpu> gpus;
  std::size_t rejected_lines = 0;  ///< lines the Prometheus parser could not read
  std::string first_problem;
};

/// The GPUs in parsed samples. Samples of a MIG instance (DCGM's GPU_I_ID label) are left out:
/// the schema is per physical GPU. A series with several samples per GPU (AMD's clocks of
/// several engines) gives their mean.
[[nodiscard]] exporter_reading read_gpu_exporter(const std::vector<prometheus_sample>& samples);

/// parse_prometheus_text, then read_gpu_exporter. Never throws.
[[nodiscard]] exporter_reading parse_gpu_exporter(std::string_view text);

/// Whether `name` is a series the schema reads (a scrape keeps only those).
[[nodiscard]] bool is_gpu_exporter_series(std::string_view name);

/// The series names the schema reads, for the documentation and tests: "EXPORTER FIELD SERIES".
[[nodiscard]] std::vector<std::string> gpu_exporter_series_names();

}  // namespace ironbench::serve
