// MPI as bootstrap and as a host-memory collective backend.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "comm/communicator.hpp"

namespace ironbench::comm {

/// Initialises MPI (once per process; finalised at exit) and returns the world bootstrap.
[[nodiscard]] std::shared_ptr<bootstrap> mpi_world();

/// Collectives with MPI on host memory over the world communicator. fp16 and bf16 reduce
/// with user-defined MPI operators; avg is a sum divided by the rank count afterwards.
[[nodiscard]] std::unique_ptr<collective_backend> mpi_host_backend(std::shared_ptr<bootstrap> world);

/// The memory a GPU-aware MPI measures with (see comm/gpu_comm_buffer.hpp).
struct mpi_device_memory {
  std::string description;  ///< "device buffers, cuda:0"
  std::function<std::unique_ptr<comm_buffer>(std::size_t bytes)> allocate;
  std::function<void(void* to, const void* from, std::size_t bytes)> copy;  ///< device to device
};

/// Collectives with MPI on GPU memory, for an MPI built GPU-aware (device pointers passed to
/// MPI as they are, as OSU's -d cuda/rocm does). The reductions MPI cannot do on device memory
/// (fp16 and bf16 through user-defined operators, avg's division) are skipped with the reason.
[[nodiscard]] std::unique_ptr<collective_backend> mpi_device_backend(std::shared_ptr<bootstrap> world,
                                                                     mpi_device_memory memory);

/// Whether this MPI says it takes device pointers of `vendor` ("cuda" or "hip"): Open MPI's
/// MPIX_Query_cuda_support / MPIX_Query_rocm_support, MPICH's MPIX_GPU_query_support. Sets
/// `why` to what was asked and answered; nullopt when this MPI has no way to say.
[[nodiscard]] std::optional<bool> mpi_gpu_aware(const std::string& vendor, std::string& why);

}  // namespace ironbench::comm
