#include "benchmarks/gpu/copy_support.hpp"

#include <fmt/format.h>

#include <vector>

#include "benchmarks/gpu/copy_kernels.hpp"
#include "device/gpu/gpu_check.hpp"

namespace ironbench::benchmarks {

void host_fill_pattern(std::uint8_t* data, std::size_t bytes, std::uint32_t salt) {
  for (std::size_t i = 0; i < bytes; ++i) data[i] = pattern_byte(i, salt);
}

std::string host_check_pattern(const std::uint8_t* data, std::size_t bytes, std::uint32_t salt) {
  for (std::size_t i = 0; i < bytes; ++i) {
    if (data[i] != pattern_byte(i, salt)) {
      return fmt::format("byte {} of {} is {:#04x}, expected {:#04x}", i, bytes, data[i], pattern_byte(i, salt));
    }
  }
  return {};
}

std::string device_check_pattern(const std::uint8_t* device_data, std::size_t bytes, std::uint32_t salt) {
  std::vector<std::uint8_t> host(bytes);
  IRONBENCH_GPU_CHECK(cudaMemcpy(host.data(), device_data, bytes, cudaMemcpyDefault));
  return host_check_pattern(host.data(), bytes, salt);
}

void enqueue_copy(const std::string& engine, void* destination, const void* source, std::size_t bytes, unsigned blocks,
                  cudaStream_t stream) {
  if (engine == "sm") {
    gpu_kernel_copy(destination, source, bytes, blocks, stream);
  } else {
    IRONBENCH_GPU_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream));
  }
}

unsigned copy_kernel_blocks(int multiprocessors) { return static_cast<unsigned>(std::max(multiprocessors, 1) * 4); }

}  // namespace ironbench::benchmarks
