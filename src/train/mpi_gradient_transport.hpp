// Gradient exchange between CPU ranks with MPI (non-blocking all-reduce on host memory) over
// the first `participants` ranks of MPI_COMM_WORLD.
#pragma once

#include <memory>

#include "train/gradient_transport.hpp"

namespace ironbench::train {

/// A transport over world ranks 0 .. participants-1, or nullptr on the other ranks. Collective:
/// every world rank calls it with the same `participants` (1 <= participants <= world size).
[[nodiscard]] std::unique_ptr<gradient_transport> mpi_gradient_transport(int participants);

}  // namespace ironbench::train
