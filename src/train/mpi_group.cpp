#include "train/mpi_group.hpp"

#include <fmt/format.h>

#include <climits>
#include <stdexcept>

#include "comm/mpi/mpi_communicator.hpp"
#include "core/error.hpp"

namespace ironbench::train {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw error(fmt::format("{} failed: {}", call, std::string(text, static_cast<std::size_t>(length))));
}

std::unique_ptr<mpi_group> mpi_group::first_ranks(int participants) {
  const auto world = comm::mpi_world();
  if (participants < 1 || participants > world->size()) {
    throw std::invalid_argument(
        fmt::format("{} data-parallel ranks asked for, the job has {}", participants, world->size()));
  }
  MPI_Comm group = MPI_COMM_NULL;
  IRONBENCH_TRAIN_MPI(
      MPI_Comm_split(MPI_COMM_WORLD, world->rank() < participants ? 0 : MPI_UNDEFINED, world->rank(), &group));
  if (group == MPI_COMM_NULL) return nullptr;
  return std::unique_ptr<mpi_group>(new mpi_group(group));
}

mpi_group::mpi_group(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

mpi_group::~mpi_group() { MPI_Comm_free(&comm_); }

std::string mpi_group::library() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  const std::string text(version, static_cast<std::size_t>(length));
  return text.substr(0, text.find_first_of(",\n"));
}

double mpi_group::sum(double value) const {
  double total = 0;
  IRONBENCH_TRAIN_MPI(MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, comm_));
  return total;
}

double mpi_group::max(double value) const {
  double largest = 0;
  IRONBENCH_TRAIN_MPI(MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, comm_));
  return largest;
}

void mpi_group::broadcast_bytes(void* data, std::size_t bytes) const {
  if (bytes > static_cast<std::size_t>(INT_MAX)) throw std::invalid_argument("a broadcast exceeds MPI's byte count");
  IRONBENCH_TRAIN_MPI(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, comm_));
}

}  // namespace ironbench::train
