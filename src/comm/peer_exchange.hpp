// Point-to-point exchanges between two ranks of a job (a pairwise sweep's pairs), beside the
// bootstrap's collective calls. MPI's implementation: comm/mpi/mpi_peer_exchange.hpp.
#pragma once

#include <cstddef>

namespace ironbench::comm {

class peer_exchange {
 public:
  virtual ~peer_exchange() = default;
  /// Sends `bytes` of `send` to `peer` while receiving `bytes` from it into `receive`.
  virtual void send_receive(int peer, const void* send, void* receive, std::size_t bytes) = 0;
  /// Sends `bytes` of `data` to `peer` (returns once the buffer may be reused).
  virtual void send(int peer, const void* data, std::size_t bytes) = 0;
  /// Receives exactly `bytes` from `peer` into `data`.
  virtual void receive(int peer, void* data, std::size_t bytes) = 0;
};

}  // namespace ironbench::comm
