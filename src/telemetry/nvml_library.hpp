// NVML (libnvidia-ml), loaded with dlopen. Only a few long-stable entry points are used,
// declared here with NVML's C ABI so that no NVML header is needed to build.
#pragma once

#include <string>

namespace ironbench::telemetry {

/// Name of an nvmlGpuVirtualizationMode_t value: none, passthrough, vgpu, host_vgpu,
/// host_vsga, or "mode_N".
[[nodiscard]] std::string nvml_virtualization_mode_name(int mode);

/// "enabled", "disabled" for an NVML MIG mode value (1, 0); "mode_N" otherwise.
[[nodiscard]] std::string nvml_mig_mode_name(unsigned mode);

}  // namespace ironbench::telemetry
