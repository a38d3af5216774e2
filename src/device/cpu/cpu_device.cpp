#include "device/cpu/cpu_device.hpp"

#include <omp.h>

#include <string>

#include "device/cpu/cpu_fma_rate.hpp"
#include "platform/cpu_peak.hpp"

namespace ironbench::device {

core::device_info describe_cpu(const platform::host_fingerprint& host) {
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.kind = core::device_kind::cpu;
  cpu.index = 0;
  cpu.name = host.cpu.model_name.empty() ? "CPU" : host.cpu.model_name;
  cpu.memory_bytes = host.usable_memory_bytes().value_or(0);

  auto& p = cpu.properties;
  p["threads"] = omp_get_max_threads();
  if (const auto cores = platform::usable_physical_cores(host)) p["physical_cores"] = *cores;
  if (const auto cpus = host.usable_cpus()) p["logical_cpus"] = *cpus;
  if (host.cpu.topology.numa_nodes) p["numa_nodes"] = *host.cpu.topology.numa_nodes;
  if (host.cpu.last_level_cache_bytes_total) {
    p["last_level_cache_bytes"] = *host.cpu.last_level_cache_bytes_total;
  }
  if (host.memory.available_bytes) p["available_memory_bytes"] = *host.memory.available_bytes;
  json peaks = json::object();
  for (const auto dtype : platform::cpu_peak_dtypes) {
    const auto estimate = platform::cpu_peak_flops(host, dtype);
    json entry = json::object();
    entry["flops_per_second"] = estimate.flops_per_second ? json(*estimate.flops_per_second) : json(nullptr);
    entry["source"] = estimate.note;
    peaks[std::string(dtype)] = std::move(entry);
  }
  p["peak_flops"] = std::move(peaks);
  return cpu;
}

void add_measured_cpu_flops(core::device_info& cpu) {
  const auto rate = measure_cpu_fma_rate();
  if (!rate) return;
  const auto source = rate->describe();
  cpu.properties["measured_flops"] = {
      {"fp64", {{"flops_per_second", rate->fp64_flops_per_second}, {"source", source}}},
      {"fp32", {{"flops_per_second", 2 * rate->fp64_flops_per_second}, {"source", source + "; fp32 at twice fp64"}}}};
}

}  // namespace ironbench::device
