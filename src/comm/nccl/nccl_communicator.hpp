// NCCL (RCCL on ROCm, which keeps NCCL's API) as a device-memory collective backend, one GPU
// per rank, bootstrapped over MPI.
#pragma once

#include <memory>

#include "comm/communicator.hpp"

namespace ironbench::comm {

/// A communicator over every rank of `world`, on GPU `gpu_index` of this rank (nccl-tests'
/// one process per GPU). Collective calls are enqueued on the backend's own stream.
[[nodiscard]] std::unique_ptr<collective_backend> nccl_device_backend(std::shared_ptr<bootstrap> world, int gpu_index);

}  // namespace ironbench::comm
