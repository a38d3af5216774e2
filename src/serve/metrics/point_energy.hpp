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

/// The share of a point's window its samples must cover for its energy to be valid.
inline constexpr double min_energy_coverage = 0.9;

/// One reading of a GPU's power and / or energy counter, `t_s` on the window's clock.
struct energy_sample {
  double t_s = 0;
  std::optional<double> power_w;
  std::optional<double> energy_j;  ///< a cumulative counter
};

/// A GPU's energy over a window, and how far its samples cover the window. Two consecutive
/// samples cover the time between them when they are at most `max_gap_s` apart (and, for the
/// counter, it did not go backwards); the energy is integrated over covered time only: the
/// counter's increase (a pair straddling an edge of the window: its share by time), else the
/// power samples' trapezoids. The energy counter is used when two samples carry it, else power.
struct energy_estimate {
  double covered_energy_j = 0;  ///< over the covered time
  double energy_j = 0;          ///< covered_energy_j / coverage: the whole window at the covered mean power
  double window_s = 0, covered_s = 0, coverage = 0;
  double largest_gap_s = 0;  ///< the longest stretch of the window with no sample in it (edges included)
  double max_gap_s = 0;      ///< the rule's bound
  std::string source;        ///< "energy counter", "power samples", or "" with nothing readable
  bool valid = false;        ///< coverage >= min_energy_coverage
  std::string invalid_reason;
};

/// The estimate over [begin_s, end_s] (see energy_estimate).
[[nodiscard]] energy_estimate estimate_energy(std::vector<energy_sample> samples, double begin_s, double end_s,
                                              double max_gap_s);

/// The energy keys of a point's telemetry summary from every GPU's estimate: energy_j (sum
/// over GPUs), energy_covered_j, energy_source, energy_coverage (the lowest GPU's),
/// energy_largest_gap_s (the longest), energy_max_gap_s, energy_valid and, when not,
/// energy_invalid_reason; with valid energy and output tokens, joules_per_output_token and
/// output_tokens_per_joule. The matching metrics (gpu_energy_j, joules_per_output_token,
/// output_tokens_per_joule) are appended only when the energy is valid.
void add_energy_verdict(const std::vector<energy_estimate>& gpus, double output_tokens, json& summary,
                        std::vector<core::metric>& metrics);

/// Stops every watcher and adds up what they saw; `output_tokens` of the point. Each GPU's
/// samples are judged by estimate_energy over their own span, with a maximum gap of twice
/// their median spacing.
[[nodiscard]] point_gpu_telemetry finish_gpu_watch(std::vector<watched_gpu>& gpus, double output_tokens);

/// A GPU's energy over a point: its energy counter's difference when the library has one,
/// else the power samples integrated over time (trapezoids); nullopt when neither was read.
/// `counter` tells which.
[[nodiscard]] std::optional<double> energy_of(const core::case_observation& seen, bool* counter = nullptr);

}  // namespace ironbench::serve
