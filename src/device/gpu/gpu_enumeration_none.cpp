#include "device/gpu/gpu_enumeration.hpp"

namespace ironbench::device {

gpu_enumeration enumerate_gpus() {
  return {{}, "gpu: this build has no GPU support (configure with IRONBENCH_CUDA=ON or IRONBENCH_HIP=ON)"};
}

}  // namespace ironbench::device
