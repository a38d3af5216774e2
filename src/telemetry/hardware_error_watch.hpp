// Reads the hardware error counters (hardware_error_counters.hpp) of a machine's GPUs through
// their management libraries (NVML, ROCm SMI), with amdgpu's sysfs RAS counts where ROCm SMI
// gives none, and the host memory controllers' EDAC counts (device "host"), and collects the
// GPUs' XID events between readings. A run takes one reading when it
// starts and one when it ends (session/run_setup.hpp); a burn-in one per interval.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/hardware_error_counters.hpp"

namespace ironbench::telemetry {

/// The management library of a GPU kind.
using library_lookup = std::function<const opened_library&(core::device_kind)>;

class hardware_error_watch {
 public:
  /// Watches the GPUs among `devices` (other devices are left out) with each kind's library
  /// (library_for) and amdgpu's sysfs below `sysfs_root`. XID events count from here.
  explicit hardware_error_watch(const std::vector<core::device_info>& devices, const std::string& sysfs_root = "/");
  /// The same with the libraries `libraries` gives (tests pass a stand-in).
  hardware_error_watch(const std::vector<core::device_info>& devices, const library_lookup& libraries,
                       std::string sysfs_root);
  hardware_error_watch(const hardware_error_watch&) = delete;
  hardware_error_watch& operator=(const hardware_error_watch&) = delete;
  ~hardware_error_watch();

  /// Every watched GPU's counters now, with the XIDs reported since the previous reading, and
  /// the host's EDAC counts where the kernel has them.
  [[nodiscard]] error_counter_reading read();
  /// Whether any GPU is watched.
  [[nodiscard]] bool empty() const { return devices_.empty(); }

 private:
  struct watched;
  std::vector<std::unique_ptr<watched>> devices_;
  std::string root_;
  std::mutex mutex_;
};

}  // namespace ironbench::telemetry
