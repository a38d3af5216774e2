// GPUs visible to this build. Absent GPUs are not an error: the enumeration says why none
// were found ("built without GPU support", "no GPU: CUDA driver is insufficient"), and GPU
// cases are recorded as skipped with that reason.
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"

namespace ironbench::device {

struct gpu_enumeration {
  std::vector<core::device_info> devices;
  std::string note;  ///< why the list is empty (or anything notable), one line
};

/// GPUs of the build's vendor: ids "cuda:0", ... or "hip:0", .... Properties: arch,
/// compute_capability (CUDA), multiprocessors, sm_clock_max_mhz, memory_clock_max_mhz,
/// memory_bus_width_bits, l2_cache_bytes, pci_bus_id, runtime and driver API versions,
/// peers (ids reachable by peer-to-peer), peak_flops per dtype and peak_bandwidth (see
/// gpu_specs.hpp). Built from gpu_enumeration_vendor.cpp in GPU builds, from
/// gpu_enumeration_none.cpp otherwise.
[[nodiscard]] gpu_enumeration enumerate_gpus();

}  // namespace ironbench::device
