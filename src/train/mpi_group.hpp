// The first n ranks of MPI_COMM_WORLD as their own communicator: what a data-parallel group of
// a --scaling sweep runs on (the gradient exchange itself, or the bootstrap of NCCL/RCCL).
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

namespace ironbench::train {

class mpi_group {
 public:
  /// Collective over the world: ranks 0 .. participants-1 get a group, the others nullptr.
  [[nodiscard]] static std::unique_ptr<mpi_group> first_ranks(int participants);
  ~mpi_group();
  mpi_group(const mpi_group&) = delete;
  mpi_group& operator=(const mpi_group&) = delete;

  [[nodiscard]] MPI_Comm comm() const { return comm_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] std::string library() const;  ///< "Open MPI v4.1.4"

  [[nodiscard]] double sum(double value) const;
  [[nodiscard]] double max(double value) const;
  void broadcast_bytes(void* data, std::size_t bytes) const;

 private:
  explicit mpi_group(MPI_Comm comm);
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

/// Throws ironbench::error naming the call when an MPI call failed.
void check_mpi(int code, const char* call);
#define IRONBENCH_TRAIN_MPI(call) ::ironbench::train::check_mpi((call), #call)

}  // namespace ironbench::train
