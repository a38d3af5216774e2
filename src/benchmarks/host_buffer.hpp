// An uninitialised, page-aligned host array. Benchmarks touch it first from the threads that
// will use it, so its pages land on their NUMA nodes (std::vector would zero it from one).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace ironbench::benchmarks {

template <typename T>
class host_buffer {
 public:
  /// 2 MiB alignment lets the kernel back large arrays with transparent huge pages.
  static constexpr std::size_t alignment = std::size_t{2} << 20;

  explicit host_buffer(std::size_t count) : count_(count) {
    void* memory = nullptr;
    if (posix_memalign(&memory, alignment, count * sizeof(T) + 1) != 0) throw std::bad_alloc();
    data_.reset(static_cast<T*>(memory));
  }

  [[nodiscard]] T* data() { return data_.get(); }
  [[nodiscard]] const T* data() const { return data_.get(); }
  [[nodiscard]] std::size_t size() const { return count_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  struct free_memory {
    void operator()(T* p) const { std::free(p); }
  };
  std::size_t count_;
  std::unique_ptr<T[], free_memory> data_;
};

}  // namespace ironbench::benchmarks
