// The host CPU as a benchmark device: one device "cpu" spanning every core this process may
// use (OpenMP and OpenBLAS threads).
#pragma once

#include "core/device_info.hpp"
#include "platform/host_fingerprint.hpp"

namespace ironbench::device {

/// Describes the CPU device. Its properties hold what benchmarks size and judge work by:
/// threads, physical_cores, numa_nodes, last_level_cache_bytes, available_memory_bytes and
/// peak_flops {fp64|fp32|bf16: {flops_per_second (null when unknown), source}}.
/// memory_bytes is the memory this process may use (min of RAM and the cgroup limit).
[[nodiscard]] core::device_info describe_cpu(const platform::host_fingerprint& host);

/// Measures the all-CPU FMA rate (cpu_fma_rate.hpp, about 0.1 s) and adds it to the CPU
/// device as measured_flops {fp64|fp32: {flops_per_second, source}} (fp32 at twice fp64: the
/// same vector units, twice the lanes); nothing where it cannot be measured.
void add_measured_cpu_flops(core::device_info& cpu);

}  // namespace ironbench::device
