#include "benchmarks/gpu/copy_kernels.hpp"

#include "device/gpu/gpu_check.hpp"

namespace ironbench::benchmarks {
namespace {

constexpr int threads = 512;

__global__ void copy_kernel(uint4* __restrict__ destination, const uint4* __restrict__ source, std::size_t vectors,
                            std::uint8_t* __restrict__ tail_destination, const std::uint8_t* __restrict__ tail_source,
                            std::size_t tail) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Four independent 16-byte loads per thread before the stores: more bytes in flight.
  std::size_t i = first;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    const uint4 v0 = source[i];
    const uint4 v1 = source[i + stride];
    const uint4 v2 = source[i + 2 * stride];
    const uint4 v3 = source[i + 3 * stride];
    destination[i] = v0;
    destination[i + stride] = v1;
    destination[i + 2 * stride] = v2;
    destination[i + 3 * stride] = v3;
  }
  for (; i < vectors; i += stride) destination[i] = source[i];
  if (first < tail) tail_destination[first] = tail_source[first];
}

__global__ void pattern_kernel(std::uint8_t* data, std::size_t bytes, std::uint32_t salt) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride) {
    data[i] = pattern_byte(i, salt);
  }
}

}  // namespace

void gpu_kernel_copy(void* destination, const void* source, std::size_t bytes, unsigned blocks, cudaStream_t stream) {
  // Buffers from the allocators are 256-byte aligned; the last bytes % 16 go one per thread.
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t done = vectors * sizeof(uint4);
  copy_kernel<<<blocks, threads, 0, stream>>>(static_cast<uint4*>(destination), static_cast<const uint4*>(source),
                                              vectors, static_cast<std::uint8_t*>(destination) + done,
                                              static_cast<const std::uint8_t*>(source) + done, bytes - done);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

void gpu_fill_pattern(std::uint8_t* data, std::size_t bytes, std::uint32_t salt, cudaStream_t stream) {
  pattern_kernel<<<4096, threads, 0, stream>>>(data, bytes, salt);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

}  // namespace ironbench::benchmarks
