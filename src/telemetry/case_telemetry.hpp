// Telemetry wired into runs: GPU devices' static facts in the fingerprint, and a monitor that
// samples a GPU's sensors during each of its cases.
#pragma once

#include <chrono>

#include "core/case_monitor.hpp"
#include "core/device_info.hpp"
#include "telemetry/gpu_telemetry.hpp"

namespace ironbench::telemetry {

/// Adds properties["telemetry"] to a GPU device: the library's static facts (driver version,
/// power limit, MIG / partition mode, virtualization mode), or {"available": false,
/// "reason": ...}. CPU devices are left alone.
void describe_gpu_telemetry(core::device_info& device);

/// Monitors for GPU cases, sampling every `interval` with the library of the device's vendor.
/// A case on a GPU the library cannot open stores {"available": false, "reason": ...}; CPU
/// cases get no monitor.
[[nodiscard]] core::case_monitor_factory gpu_case_monitors(std::chrono::milliseconds interval);

/// The same, with an explicitly given library (tests use a stand-in library).
[[nodiscard]] core::case_monitor_factory gpu_case_monitors(const opened_library& library,
                                                           std::chrono::milliseconds interval);

}  // namespace ironbench::telemetry
