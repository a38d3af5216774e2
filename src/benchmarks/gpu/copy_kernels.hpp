// Copies done by the GPU's streaming multiprocessors instead of its copy engines (as
// nvbandwidth's "SM" and TransferBench's GFX executors do): a kernel reads the source and
// writes the destination with 16-byte accesses, wherever each lives (device, peer device,
// or pinned host memory mapped into the GPU's address space).
#pragma once

#include <cstddef>
#include <cstdint>

#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::benchmarks {

/// Enqueues a kernel copying `bytes` from `source` to `destination` on the current GPU,
/// with `blocks` blocks (a few per SM keep enough bytes in flight).
void gpu_kernel_copy(void* destination, const void* source, std::size_t bytes, unsigned blocks, cudaStream_t stream);

/// Enqueues a kernel writing byte i of `data` as pattern_byte(i, salt).
void gpu_fill_pattern(std::uint8_t* data, std::size_t bytes, std::uint32_t salt, cudaStream_t stream);

/// The byte at offset i of a copy pattern (host and device agree).
IRONBENCH_HOST_DEVICE inline std::uint8_t pattern_byte(std::size_t i, std::uint32_t salt) {
  const std::uint64_t x = (static_cast<std::uint64_t>(i) + salt) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::uint8_t>(x >> 56);
}

}  // namespace ironbench::benchmarks
