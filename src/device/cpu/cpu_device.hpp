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

}  // namespace ironbench::device
