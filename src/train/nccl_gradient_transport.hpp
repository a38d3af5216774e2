// Gradient exchange between GPU ranks with NCCL (RCCL on ROCm): the bucket all-reduces run on
// a communication stream that waits for the gradients on the compute stream, so the backward
// pass continues while earlier buckets travel; wait_all makes the compute stream wait for them
// (no host synchronisation). MPI bootstraps the communicator (the unique id) and carries the
// scalar sums.
#pragma once

#include <torch/torch.h>

#include <memory>

#include "train/gradient_transport.hpp"

namespace ironbench::train {

/// A transport over world ranks 0 .. participants-1 on `device` (a GPU), or nullptr on the
/// other ranks. Collective over the world.
[[nodiscard]] std::unique_ptr<gradient_transport> nccl_gradient_transport(int participants, torch::Device device);

}  // namespace ironbench::train
