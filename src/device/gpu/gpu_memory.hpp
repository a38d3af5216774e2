// Owning handles of GPU device memory and pinned (page-locked) host memory.
#pragma once

#include <cstddef>
#include <utility>

#include "device/gpu/gpu_check.hpp"

namespace ironbench::device {

/// Makes `index` the current GPU of this thread.
inline void use_gpu(int index) { IRONBENCH_GPU_CHECK(cudaSetDevice(index)); }

/// `count` elements of T in the memory of the current GPU. Move-only; freed on destruction.
template <typename T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count > 0) IRONBENCH_GPU_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (data_ != nullptr) (void)cudaFree(data_);
  }

  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// `count` elements of T in pinned host memory, mapped into every GPU's address space
/// (portable, mapped) so that copy engines and kernels can reach it directly.
template <typename T>
class pinned_buffer {
 public:
  explicit pinned_buffer(std::size_t count) : count_(count) {
    if (count > 0) {
      IRONBENCH_GPU_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), count * sizeof(T),
                                        cudaHostAllocPortable | cudaHostAllocMapped));
    }
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
  }

  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }
  /// The address kernels on the current GPU use for this memory.
  [[nodiscard]] T* device_pointer() const {
    void* mapped = nullptr;
    IRONBENCH_GPU_CHECK(cudaHostGetDevicePointer(&mapped, data_, 0));
    return static_cast<T*>(mapped);
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace ironbench::device
