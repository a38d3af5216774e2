#include <fmt/format.h>

#include <string>

#include "device/gpu/gpu_enumeration.hpp"
#include "device/gpu/gpu_specs.hpp"
#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::device {
namespace {

// The kind whose name is the runtime's (vendor_runtime.hpp): its row in core::device_kinds.
constexpr auto gpu_kind = *core::parse_device_kind(IRONBENCH_GPU_VENDOR);

#if defined(IRONBENCH_GPU_HIP)
std::string arch_of(const cudaDeviceProp& p) {
  const std::string full = p.gcnArchName;  // "gfx942:sramecc+:xnack-"
  return full.substr(0, full.find(':'));
}
std::string version_text(int version) {  // HIP: major * 10000000 + minor * 100000 + patch
  return fmt::format("{}.{}.{}", version / 10000000, (version / 100000) % 100, version % 100000);
}
#else
std::string arch_of(const cudaDeviceProp& p) { return fmt::format("sm_{}{}", p.major, p.minor); }
std::string version_text(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }
#endif

int attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, which, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return value;
}

json peers_of(int device, int count) {
  json peers = json::array();
  for (int other = 0; other < count; ++other) {
    int can = 0;
    if (other != device && cudaDeviceCanAccessPeer(&can, device, other) == cudaSuccess && can != 0) {
      peers.push_back(fmt::format("{}:{}", IRONBENCH_GPU_VENDOR, other));
    }
  }
  (void)cudaGetLastError();
  return peers;
}

core::device_info describe(int index, int count, int driver, int runtime) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  core::device_info d;
  d.id = fmt::format("{}:{}", IRONBENCH_GPU_VENDOR, index);
  d.kind = gpu_kind;
  d.index = index;
  d.name = p.name;
  d.memory_bytes = p.totalGlobalMem;
  char bus_id[32] = {};
  (void)cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, index);

  gpu_peak_inputs peak;
  peak.name = d.name;
  peak.arch = arch_of(p);
  peak.units = p.multiProcessorCount;
  peak.max_clock_mhz = attribute(cudaDevAttrClockRate, index) / 1000.0;
  peak.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, index) / 1000.0;
  peak.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);

  d.properties = json{{"vendor", IRONBENCH_GPU_VENDOR},
                      {"arch", peak.arch},
                      {"multiprocessors", peak.units},
                      {"sm_clock_max_mhz", peak.max_clock_mhz},
                      {"memory_clock_max_mhz", peak.memory_clock_mhz},
                      {"memory_bus_width_bits", peak.memory_bus_bits},
                      {"l2_cache_bytes", p.l2CacheSize},
                      {"pci_bus_id", bus_id},
                      {"driver_api_version", version_text(driver)},
                      {"runtime_version", version_text(runtime)},
                      {"gpu_count", count},
                      {"peers", peers_of(index, count)},
                      {"peak_flops", gpu_peak_flops(peak)},
                      {"peak_bandwidth", gpu_peak_bandwidth(peak)}};
#if !defined(IRONBENCH_GPU_HIP)
  d.properties["compute_capability"] = fmt::format("{}.{}", p.major, p.minor);
#endif
  return d;
}

}  // namespace

gpu_enumeration enumerate_gpus() {
  gpu_enumeration result;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // cudaErrorInsufficientDriver and cudaErrorNoDevice mean "no usable GPU here".
    result.note =
        fmt::format("{}: no GPU ({}: {})", IRONBENCH_GPU_VENDOR, cudaGetErrorName(status), cudaGetErrorString(status));
    (void)cudaGetLastError();
    return result;
  }
  if (count == 0) {
    result.note = fmt::format("{}: no GPU found", IRONBENCH_GPU_VENDOR);
    return result;
  }
  int driver = 0;
  int runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  for (int i = 0; i < count; ++i) {
    auto d = describe(i, count, driver, runtime);
    if (!d.id.empty()) result.devices.push_back(std::move(d));
  }
  return result;
}

}  // namespace ironbench::device
