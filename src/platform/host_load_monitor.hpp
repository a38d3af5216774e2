// Watches what else uses the host's CPUs while each case runs: /proc/stat read when the case
// starts and when it ends, less this process's own CPU time (cpu_load.hpp). The core uses it
// to say why an unstable case scattered (case_stability.hpp).
#pragma once

#include <memory>

#include "core/case_monitor.hpp"
#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// Monitors for the cases of every device, reading /proc/stat below `reader`'s root. A case
/// whose /proc/stat cannot be read (either time) reports no load.
[[nodiscard]] core::case_monitor_factory host_load_monitors(std::shared_ptr<const sysfs_reader> reader);

}  // namespace ironbench::platform
