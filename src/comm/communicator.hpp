// The two halves of a communicator: the bootstrap every rank shares (ranks, barriers, small
// host-side reductions, gathering results at rank 0; MPI) and the backend that runs the
// measured collectives on its own buffers (MPI on host memory, NCCL/RCCL on GPU memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/collective.hpp"

namespace ironbench::comm {

class bootstrap {
 public:
  virtual ~bootstrap() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual std::string description() const = 0;  ///< "Open MPI v4.1.4"
  virtual void barrier() = 0;
  /// Sum, max and min of one value over every rank (every rank gets the result).
  [[nodiscard]] virtual double sum(double value) = 0;
  [[nodiscard]] virtual double max(double value) = 0;
  [[nodiscard]] virtual double min(double value) = 0;
  /// Every rank's text, in rank order, at rank 0 (other ranks get an empty list).
  [[nodiscard]] virtual std::vector<std::string> gather(const std::string& text) = 0;
  /// Rank 0's bytes on every rank (NCCL's unique id).
  virtual void broadcast_bytes(void* data, std::size_t bytes) = 0;
  /// Host-memory all_gather: rank r's `bytes_per_rank` bytes land at r x bytes_per_rank of
  /// `receive` on every rank.
  virtual void all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) = 0;
};

/// Memory a backend measures with (host or device); owned by the backend's allocator.
class comm_buffer {
 public:
  virtual ~comm_buffer() = default;
  [[nodiscard]] virtual void* data() = 0;
  [[nodiscard]] virtual std::size_t bytes() const = 0;
  /// Copies `bytes` from host memory into the buffer at `offset`.
  virtual void write(std::size_t offset, const void* host, std::size_t bytes) = 0;
  /// Copies `bytes` from the buffer at `offset` into host memory.
  virtual void read(std::size_t offset, void* host, std::size_t bytes) const = 0;
};

class collective_backend {
 public:
  virtual ~collective_backend() = default;
  [[nodiscard]] virtual std::string description() const = 0;  ///< "mpi (host buffers)", "nccl 2.27.3 ..."
  [[nodiscard]] virtual std::unique_ptr<comm_buffer> allocate(std::size_t bytes) = 0;
  /// Empty when the backend can run `c` with `type`, `op` and placement; otherwise why not.
  [[nodiscard]] virtual std::string unsupported(collective c, element_type type, reduce_op op, bool in_place) const = 0;
  /// Enqueues (device backends) or runs (host backends) one collective. Out of place, `send`
  /// holds shape.send_count elements and `recv` shape.recv_count. In place, `buffer` is both,
  /// with NCCL's layout: all_gather's input sits at rank x send_count of it. Returns the
  /// byte offset into the receive (or in-place) buffer where this rank's output starts.
  virtual std::size_t run(collective c, comm_buffer* send, comm_buffer& recv, const call_shape& shape,
                          element_type type, reduce_op op, int root) = 0;
  /// Waits until every enqueued collective has finished.
  virtual void synchronize() = 0;
  /// Whether timed iterations move through buffers as large as the sweep's largest size, a
  /// new slice each iteration (nccl-tests does so on GPUs, so that mid sizes are not timed
  /// out of the cache), rather than reusing one buffer (as the OSU benchmarks do on hosts).
  [[nodiscard]] virtual bool rotates_buffers() const { return false; }

  /// Graph mode (nccl-tests' -G): empty when the backend can record calls into a GPU graph
  /// and replay them; otherwise why not.
  [[nodiscard]] virtual std::string graph_unsupported() const { return "host backends have no GPU graphs"; }
  /// Records the run() calls that follow, instead of running them, until end_graph().
  virtual void begin_graph() {}
  /// Ends the recording and makes it replayable.
  virtual void end_graph() {}
  /// Enqueues the recorded calls once more.
  virtual void replay_graph() {}
  /// Frees the recording (it refers to buffers about to be freed).
  virtual void discard_graph() {}
};

}  // namespace ironbench::comm
