// Pieces shared by the copy and p2p benchmarks: byte patterns written and checked on the
// host, and one copy by either engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::benchmarks {

/// Writes pattern_byte(i, salt) to every byte (host memory).
void host_fill_pattern(std::uint8_t* data, std::size_t bytes, std::uint32_t salt);

/// Empty when every byte holds pattern_byte(i, salt); otherwise the first wrong byte.
[[nodiscard]] std::string host_check_pattern(const std::uint8_t* data, std::size_t bytes, std::uint32_t salt);

/// Copies to the host and checks (device memory of the current GPU, or any mapped memory).
[[nodiscard]] std::string device_check_pattern(const std::uint8_t* device_data, std::size_t bytes, std::uint32_t salt);

/// Enqueues one copy: engine "ce" uses the copy engines (cudaMemcpyAsync, addresses resolved
/// by unified addressing), "sm" a copy kernel with `blocks` blocks on the current GPU.
void enqueue_copy(const std::string& engine, void* destination, const void* source, std::size_t bytes, unsigned blocks,
                  cudaStream_t stream);

/// Blocks of a copy kernel on a GPU with `multiprocessors` SMs/CUs.
[[nodiscard]] unsigned copy_kernel_blocks(int multiprocessors);

}  // namespace ironbench::benchmarks
