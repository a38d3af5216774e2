// Host memory as a collective's buffer: what the MPI backend sends from and receives into
// without GPU buffers, and what host-side test backends measure with.
#pragma once

#include <cstddef>

#include "comm/communicator.hpp"

namespace ironbench::comm {

/// `bytes` of zeroed host memory, 64-byte aligned (a cache line; vector loads never split).
class host_comm_buffer final : public comm_buffer {
 public:
  explicit host_comm_buffer(std::size_t bytes);
  host_comm_buffer(const host_comm_buffer&) = delete;
  host_comm_buffer& operator=(const host_comm_buffer&) = delete;
  ~host_comm_buffer() override;
  [[nodiscard]] void* data() override { return data_; }
  [[nodiscard]] std::size_t bytes() const override { return bytes_; }
  void write(std::size_t offset, const void* host, std::size_t bytes) override;
  void read(std::size_t offset, void* host, std::size_t bytes) const override;

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace ironbench::comm
