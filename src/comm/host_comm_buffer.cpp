#include "comm/host_comm_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ironbench::comm {

host_comm_buffer::host_comm_buffer(std::size_t bytes) : bytes_(bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment (and not zero).
  data_ = static_cast<std::byte*>(std::aligned_alloc(64, std::max<std::size_t>(64, (bytes + 63) / 64 * 64)));
  if (data_ == nullptr) throw std::bad_alloc();
  std::memset(data_, 0, bytes);
}

host_comm_buffer::~host_comm_buffer() { std::free(data_); }

void host_comm_buffer::write(std::size_t offset, const void* host, std::size_t bytes) {
  std::memcpy(data_ + offset, host, bytes);
}

void host_comm_buffer::read(std::size_t offset, void* host, std::size_t bytes) const {
  std::memcpy(host, data_ + offset, bytes);
}

}  // namespace ironbench::comm
