// MPI as bootstrap and as a host-memory collective backend.
#pragma once

#include <memory>

#include "comm/communicator.hpp"

namespace ironbench::comm {

/// Initialises MPI (once per process; finalised at exit) and returns the world bootstrap.
[[nodiscard]] std::shared_ptr<bootstrap> mpi_world();

/// Collectives with MPI on host memory over the world communicator. fp16 and bf16 reduce
/// with user-defined MPI operators; avg is a sum divided by the rank count afterwards.
[[nodiscard]] std::unique_ptr<collective_backend> mpi_host_backend(std::shared_ptr<bootstrap> world);

}  // namespace ironbench::comm
