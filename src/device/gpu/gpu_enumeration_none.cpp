#include "device/gpu/gpu_enumeration.hpp"

namespace ironbench::device {

gpu_enumeration enumerate_cuda_devices() {
  return {{}, "cuda: this build has no CUDA support (configure with IRONBENCH_CUDA=ON)"};
}

}  // namespace ironbench::device
