// GPU memory for collective backends: NCCL/RCCL, and GPU-aware MPI.
#pragma once

#include <cstddef>
#include <memory>

#include "comm/communicator.hpp"

namespace ironbench::comm {

/// `bytes` of zeroed memory on the current GPU. write() and read() copy from and to the host
/// and return once the copy is complete on the device, so that work on any stream sees it.
[[nodiscard]] std::unique_ptr<comm_buffer> gpu_comm_buffer(std::size_t bytes);

/// Makes GPU `index` the current one of this thread: the GPU later buffers are made on.
void select_gpu(int index);

/// Copies `bytes` between GPU buffers and waits for the copy.
void gpu_copy(void* to, const void* from, std::size_t bytes);

}  // namespace ironbench::comm
