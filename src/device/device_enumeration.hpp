// Every device this run can use, and the user's choice among them (--device).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "platform/host_fingerprint.hpp"

namespace ironbench::device {

struct device_enumeration {
  std::vector<core::device_info> devices;  ///< the CPU first, then GPUs
  std::vector<std::string> notes;          ///< why some kinds have no devices
};

/// The CPU and the GPUs of this build's vendor; the stand-in GPUs instead of the GPUs while
/// IRONBENCH_STAND_IN_GPUS is set (stand_in_gpus.hpp).
[[nodiscard]] device_enumeration enumerate_devices(const platform::host_fingerprint& host);

/// Devices named by `spec`, a comma-separated list of "all", a kind ("cpu", "cuda", "hip")
/// or an id ("cuda:1"). Throws usage_error for a name that matches no device, saying which
/// devices exist and why others are missing.
[[nodiscard]] std::vector<core::device_info> select_devices(const device_enumeration& found, std::string_view spec);

}  // namespace ironbench::device
