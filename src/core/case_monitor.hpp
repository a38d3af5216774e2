// Something that watches a device while one case runs (GPU telemetry), so that the core can
// attach what it saw to the case without knowing where it came from.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/device_info.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "core/time_window.hpp"

namespace ironbench::core {

/// What a monitor saw during one case.
struct case_observation {
  json summary = nullptr;         ///< stored with the case (null: nothing to store)
  json series = nullptr;          ///< stored with the run (null: nothing to store)
  std::vector<metric> metrics;    ///< added to the case's metrics
  std::optional<host_load> load;  ///< what else used the host's CPUs meanwhile (host_load_monitors)
};

class case_monitor {
 public:
  virtual ~case_monitor() = default;
  /// Tells the monitor when the case's measurement ran, before finish(): the metrics it
  /// reports (SM clock, power ...) are then those of that window where it sampled it.
  virtual void measured_between(const time_window& window) { (void)window; }
  /// Stops watching and returns what was seen. Never throws.
  [[nodiscard]] virtual case_observation finish() = 0;
};

/// Makes the monitor of a case on `device` (started when made), or nullptr for none.
using case_monitor_factory = std::function<std::unique_ptr<case_monitor>(const device_info& device)>;

/// Monitors from every factory at once (empty ones left out): each sees the window, and their
/// observations are merged (summaries and series from the first that has one, metrics from all,
/// the host load from the first that saw it).
[[nodiscard]] case_monitor_factory combine_monitors(std::vector<case_monitor_factory> factories);

}  // namespace ironbench::core
