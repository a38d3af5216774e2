// The GPUs behind a serving point, watched while it runs (when the server runs on this node):
// utilisation, memory, power and clocks from the management library, and the energy the
// point cost: joules per output token and output tokens per joule where power is readable.
// The watchers come from outside (the CLI opens NVML or AMD SMI); this only adds them up.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/case_monitor.hpp"
#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::serve {

/// One GPU watched during a point.
struct watched_gpu {
  std::string device;  ///< "cuda:0"
  std::unique_ptr<core::case_monitor> monitor;
};

/// Starts watching the GPUs for one point (an empty list: none to watch).
using gpu_watch_factory = std::function<std::vector<watched_gpu>()>;

/// What the GPUs did during a point.
struct point_gpu_telemetry {
  /// {"devices": {id: the monitor's summary}, "energy_j", "energy_source" ("energy counter" or
  /// "power samples"), "joules_per_output_token", "output_tokens_per_joule"} (energy keys only
  /// where every GPU's energy was readable).
  json summary = json::object();
  json series = json::array();  ///< [{"device": id, "samples": [...]}] for the report's charts
  /// gpu_energy_j, joules_per_output_token, output_tokens_per_joule, gpu_power_w (the GPUs'
  /// mean powers added), gpu_utilization_percent (mean of the GPUs' means),
  /// gpu_memory_used_max_gib (the GPUs' highest use added), those that could be read.
  std::vector<core::metric> metrics;
};

/// Stops every watcher and adds up what they saw; `output_tokens` of the point.
[[nodiscard]] point_gpu_telemetry finish_gpu_watch(std::vector<watched_gpu>& gpus, double output_tokens);

/// A GPU's energy over a point: its energy counter's difference when the library has one,
/// else the power samples integrated over time (trapezoids); nullopt when neither was read.
/// `counter` tells which.
[[nodiscard]] std::optional<double> energy_of(const core::case_observation& seen, bool* counter = nullptr);

}  // namespace ironbench::serve
