// The one place that knows which tp devices this build has.
#include "benchmarks/tp/tp_device.hpp"

namespace ironbench::benchmarks {

std::unique_ptr<tp_device> make_tp_device(std::shared_ptr<comm::bootstrap> world,
                                          const std::optional<core::device_info>& gpu, const tp_passes& passes) {
#if IRONBENCH_WITH_GPU && IRONBENCH_WITH_NCCL
  if (gpu) return tp_gpu_device(std::move(world), gpu->index, passes);
#else
  (void)gpu;
#endif
  return tp_cpu_device(std::move(world), passes);
}

}  // namespace ironbench::benchmarks
