// Human-readable lines describing a GPU for `ironbench sysinfo`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/device_info.hpp"

namespace ironbench::device {

/// (label, text) lines: architecture and units, clocks and caches, bus and versions, peaks,
/// telemetry (or why there is none). Fields the enumeration did not fill are left out.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> gpu_summary_lines(const core::device_info& gpu);

}  // namespace ironbench::device
