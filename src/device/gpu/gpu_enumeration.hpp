// GPUs visible to this build. Absent GPUs are not an error: the enumeration says why none
// were found ("built without CUDA", "no GPU: CUDA driver is insufficient"), and GPU cases are
// recorded as skipped with that reason.
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"

namespace ironbench::device {

struct gpu_enumeration {
  std::vector<core::device_info> devices;
  std::string note;  ///< why the list is empty (or anything notable), one line
};

/// CUDA devices (ids "cuda:0", ...). Built from gpu_enumeration_cuda.cpp when the build has
/// CUDA, from gpu_enumeration_none.cpp otherwise.
[[nodiscard]] gpu_enumeration enumerate_cuda_devices();

}  // namespace ironbench::device
