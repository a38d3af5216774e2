// What watches every case of a measuring command: the GPU's sensors (telemetry) on GPU cases
// and, on every case, what else used the host's CPUs (which an unstable case reports).
#pragma once

#include <chrono>

#include "core/case_monitor.hpp"

namespace ironbench::session {

/// GPU telemetry sampled every `gpu_interval`, and the host's CPU load, for every case.
[[nodiscard]] core::case_monitor_factory case_monitors(std::chrono::milliseconds gpu_interval);

}  // namespace ironbench::session
