// A vendor management library (NVML, ROCm SMI) seen through one interface, and how to open
// the right one. Libraries are loaded with dlopen at run time, so one binary runs with or
// without the driver; a missing library is "telemetry unavailable", never a failure.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/json.hpp"
#include "telemetry/gpu_sample.hpp"
#include "telemetry/hardware_error_counters.hpp"

namespace ironbench::telemetry {

/// XID events of one GPU, collected from the moment it was made (NVML's event sets).
class xid_listener {
 public:
  virtual ~xid_listener() = default;
  /// The XID codes reported since the previous call (or since it was made). Never throws.
  [[nodiscard]] virtual std::vector<unsigned> take() = 0;
};

/// One GPU as the management library knows it.
class gpu_telemetry_device {
 public:
  virtual ~gpu_telemetry_device() = default;
  /// Reads every sensor it can now (time_s left 0). Never throws.
  [[nodiscard]] virtual gpu_sample sample() const = 0;
  /// Static facts for the fingerprint: driver version, power limit, MIG or compute/memory
  /// partition mode, GPU virtualization mode (whatever the library reports).
  [[nodiscard]] virtual json static_info() const = 0;
  /// The hardware error counters the library reports now (names of hardware_error_counters.hpp;
  /// device and source left to the caller), with what it could not read. Never throws.
  [[nodiscard]] virtual device_error_counters error_counters() const { return {}; }
  /// Starts collecting the GPU's XID events; nullptr with `why` set where the library cannot.
  [[nodiscard]] virtual std::unique_ptr<xid_listener> listen_for_xids(std::string& why) const {
    why = "XID events are not reported by this library";
    return nullptr;
  }
};

/// A loaded management library.
class gpu_telemetry_library {
 public:
  virtual ~gpu_telemetry_library() = default;
  /// "nvml 570.86.15", "rocm_smi 7.4.0".
  [[nodiscard]] virtual std::string description() const = 0;
  /// The GPU with PCI bus id `pci_bus_id` ("0000:1B:00.0"); nullptr with `why` set when the
  /// library does not know it.
  [[nodiscard]] virtual std::unique_ptr<gpu_telemetry_device> open_device(const std::string& pci_bus_id,
                                                                          std::string& why) const = 0;
};

/// A library, or why there is none.
struct opened_library {
  std::shared_ptr<gpu_telemetry_library> library;
  std::string unavailable_reason;  ///< "telemetry unavailable: libnvidia-ml.so.1 not found"
};

/// NVML, from IRONBENCH_NVML_LIBRARY or libnvidia-ml.so.1.
[[nodiscard]] opened_library open_nvml();
/// ROCm SMI, from IRONBENCH_ROCM_SMI_LIBRARY or librocm_smi64.so(.7/.6/.5/.1).
[[nodiscard]] opened_library open_rocm_smi();
/// The library for GPUs of `kind` (cuda: NVML, hip: ROCm SMI), loaded once per process.
[[nodiscard]] const opened_library& library_for(core::device_kind kind);

}  // namespace ironbench::telemetry
