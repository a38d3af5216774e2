#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "device/gpu/gpu_enumeration.hpp"

namespace ironbench::device {
namespace {

std::string version_text(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

}  // namespace

gpu_enumeration enumerate_cuda_devices() {
  gpu_enumeration result;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // cudaErrorInsufficientDriver and cudaErrorNoDevice mean "no usable GPU here".
    result.note = fmt::format("cuda: no GPU ({}: {})", cudaGetErrorName(status), cudaGetErrorString(status));
    cudaGetLastError();
    return result;
  }
  if (count == 0) {
    result.note = "cuda: no GPU found";
    return result;
  }
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, i) != cudaSuccess) continue;
    core::device_info d;
    d.id = fmt::format("cuda:{}", i);
    d.kind = core::device_kind::cuda;
    d.index = i;
    d.name = properties.name;
    d.memory_bytes = properties.totalGlobalMem;
    char bus_id[32] = {};
    cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, i);
    d.properties = json{{"compute_capability", fmt::format("{}.{}", properties.major, properties.minor)},
                        {"multiprocessors", properties.multiProcessorCount},
                        {"l2_cache_bytes", properties.l2CacheSize},
                        {"pci_bus_id", bus_id},
                        {"driver_version", version_text(driver)},
                        {"runtime_version", version_text(runtime)}};
    result.devices.push_back(std::move(d));
  }
  return result;
}

}  // namespace ironbench::device
