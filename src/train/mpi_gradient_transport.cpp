#include "train/mpi_gradient_transport.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <stdexcept>
#include <vector>

#include "comm/mpi/mpi_communicator.hpp"

namespace ironbench::train {

namespace {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text, static_cast<std::size_t>(length))));
}
#define IRONBENCH_TRAIN_MPI(call) check((call), #call)

class mpi_transport final : public gradient_transport {
 public:
  explicit mpi_transport(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string text(version, static_cast<std::size_t>(length));
    library_ = text.substr(0, text.find_first_of(",\n"));
  }
  ~mpi_transport() override {
    if (!pending_.empty()) MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string description() const override { return fmt::format("MPI ({}), host memory", library_); }

  void start_sum(torch::Tensor& flat) override {
    if (!flat.is_contiguous() || flat.scalar_type() != torch::kFloat || !flat.device().is_cpu()) {
      throw std::invalid_argument("MPI gradient buckets must be contiguous fp32 host tensors");
    }
    if (flat.numel() > INT_MAX) throw std::invalid_argument("a gradient bucket exceeds MPI's element count");
    MPI_Request request;
    IRONBENCH_TRAIN_MPI(MPI_Iallreduce(MPI_IN_PLACE, flat.data_ptr<float>(), static_cast<int>(flat.numel()), MPI_FLOAT,
                                       MPI_SUM, comm_, &request));
    pending_.push_back(request);
  }
  void progress() override {
    if (pending_.empty()) return;
    int done = 0;
    IRONBENCH_TRAIN_MPI(MPI_Testall(static_cast<int>(pending_.size()), pending_.data(), &done, MPI_STATUSES_IGNORE));
  }
  void wait_all() override {
    if (pending_.empty()) return;
    IRONBENCH_TRAIN_MPI(MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE));
    pending_.clear();
  }
  void broadcast(torch::Tensor& t) override {
    if (!t.is_contiguous() || !t.device().is_cpu()) throw std::invalid_argument("MPI broadcasts contiguous host tensors");
    const auto bytes = t.numel() * static_cast<std::int64_t>(t.element_size());
    if (bytes > INT_MAX) throw std::invalid_argument("a parameter exceeds MPI's byte count");
    IRONBENCH_TRAIN_MPI(MPI_Bcast(t.data_ptr(), static_cast<int>(bytes), MPI_BYTE, 0, comm_));
  }
  double sum(double value) override {
    double total = 0;
    IRONBENCH_TRAIN_MPI(MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, comm_));
    return total;
  }
  double max(double value) override {
    double largest = 0;
    IRONBENCH_TRAIN_MPI(MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, comm_));
    return largest;
  }
  void barrier() override { IRONBENCH_TRAIN_MPI(MPI_Barrier(comm_)); }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::string library_;
  std::vector<MPI_Request> pending_;
};

}  // namespace

int mpi_world_rank() {
  return comm::mpi_world()->rank();
}

int mpi_world_size() {
  return comm::mpi_world()->size();
}

void mpi_world_barrier() { comm::mpi_world()->barrier(); }

std::unique_ptr<gradient_transport> mpi_gradient_transport(int participants) {
  const int rank = mpi_world_rank();
  const int size = mpi_world_size();
  if (participants < 1 || participants > size) {
    throw std::invalid_argument(fmt::format("{} data-parallel ranks asked for, the job has {}", participants, size));
  }
  MPI_Comm group = MPI_COMM_NULL;
  IRONBENCH_TRAIN_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < participants ? 0 : MPI_UNDEFINED, rank, &group));
  if (group == MPI_COMM_NULL) return nullptr;
  return std::make_unique<mpi_transport>(group);
}

}  // namespace ironbench::train
