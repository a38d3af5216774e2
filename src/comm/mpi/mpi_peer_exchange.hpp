// Point-to-point exchanges over MPI_COMM_WORLD (MPI_Sendrecv, MPI_Send, MPI_Recv on host memory).
#pragma once

#include <memory>

#include "comm/peer_exchange.hpp"

namespace ironbench::comm {

/// Exchanges between the ranks of MPI's world (initialised by mpi_world() first).
[[nodiscard]] std::unique_ptr<peer_exchange> mpi_peer_exchange();

}  // namespace ironbench::comm
