#include "train/mpi_gradient_transport.hpp"

#include <fmt/format.h>

#include <climits>
#include <stdexcept>
#include <vector>

#include "train/mpi_group.hpp"

namespace ironbench::train {

namespace {

class mpi_transport final : public gradient_transport {
 public:
  explicit mpi_transport(std::unique_ptr<mpi_group> group) : group_(std::move(group)) {}
  ~mpi_transport() override {
    if (!pending_.empty()) MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
  }
  int rank() const override { return group_->rank(); }
  int size() const override { return group_->size(); }
  std::string description() const override { return fmt::format("MPI ({}), host memory", group_->library()); }

  void start_sum(torch::Tensor& flat) override {
    if (!flat.is_contiguous() || flat.scalar_type() != torch::kFloat || !flat.device().is_cpu()) {
      throw std::invalid_argument("MPI gradient buckets must be contiguous fp32 host tensors");
    }
    if (flat.numel() > INT_MAX) throw std::invalid_argument("a gradient bucket exceeds MPI's element count");
    MPI_Request request;
    IRONBENCH_TRAIN_MPI(MPI_Iallreduce(MPI_IN_PLACE, flat.data_ptr<float>(), static_cast<int>(flat.numel()), MPI_FLOAT,
                                       MPI_SUM, group_->comm(), &request));
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
    if (!t.is_contiguous() || !t.device().is_cpu())
      throw std::invalid_argument("MPI broadcasts contiguous host tensors");
    group_->broadcast_bytes(t.data_ptr(), static_cast<std::size_t>(t.numel()) * t.element_size());
  }
  double sum(double value) override { return group_->sum(value); }
  double max(double value) override { return group_->max(value); }

 private:
  std::unique_ptr<mpi_group> group_;
  std::vector<MPI_Request> pending_;
};

}  // namespace

std::unique_ptr<gradient_transport> mpi_gradient_transport(int participants) {
  auto group = mpi_group::first_ranks(participants);
  if (!group) return nullptr;
  return std::make_unique<mpi_transport>(std::move(group));
}

}  // namespace ironbench::train
