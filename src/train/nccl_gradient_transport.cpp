#include "train/nccl_gradient_transport.hpp"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <fmt/format.h>

#if IRONBENCH_TORCH_HIP
#include <rccl/rccl.h>  // ROCm installs RCCL's header only under this name
#else
#include <nccl.h>
#endif

#include "core/error.hpp"
#include "train/mpi_group.hpp"

namespace ironbench::train {

namespace {

void check_nccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess) throw error(fmt::format("{} failed: {}", call, ncclGetErrorString(result)));
}
#define IRONBENCH_NCCL_CALL(call) check_nccl((call), #call)

class nccl_transport final : public gradient_transport {
 public:
  nccl_transport(std::unique_ptr<mpi_group> group, torch::Device device)
      : group_(std::move(group)),
        device_(device),
        guard_(device),
        comm_stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/true, device.index())) {
    ncclUniqueId id;
    if (group_->rank() == 0) IRONBENCH_NCCL_CALL(ncclGetUniqueId(&id));
    group_->broadcast_bytes(&id, sizeof(id));
    IRONBENCH_NCCL_CALL(ncclCommInitRank(&comm_, group_->size(), id, group_->rank()));
    int version = 0;
    ncclGetVersion(&version);
    version_ = fmt::format("{}.{}.{}", version / 10000, (version / 100) % 100, version % 100);
  }
  ~nccl_transport() override {
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }
  int rank() const override { return group_->rank(); }
  int size() const override { return group_->size(); }
  std::string description() const override {
    return fmt::format("NCCL {} on a separate stream, bootstrap over MPI ({})", version_, group_->library());
  }

  void start_sum(torch::Tensor& flat) override {
    if (!flat.is_contiguous() || flat.scalar_type() != torch::kFloat || !flat.is_cuda()) {
      throw std::invalid_argument("NCCL gradient buckets must be contiguous fp32 GPU tensors");
    }
    // The gradients of the bucket were written on the compute stream.
    at::cuda::CUDAEvent ready;
    ready.record(c10::cuda::getCurrentCUDAStream(device_.index()));
    ready.block(comm_stream_);
    IRONBENCH_NCCL_CALL(ncclAllReduce(flat.data_ptr<float>(), flat.data_ptr<float>(),
                                      static_cast<std::size_t>(flat.numel()), ncclFloat32, ncclSum, comm_,
                                      comm_stream_.stream()));
    started_ = true;
  }
  void progress() override {}
  void wait_all() override {
    if (!started_) return;
    at::cuda::CUDAEvent done;
    done.record(comm_stream_);
    done.block(c10::cuda::getCurrentCUDAStream(device_.index()));
    started_ = false;
  }
  void broadcast(torch::Tensor& t) override {
    if (!t.is_contiguous() || !t.is_cuda()) throw std::invalid_argument("NCCL broadcasts contiguous GPU tensors");
    const auto stream = c10::cuda::getCurrentCUDAStream(device_.index());
    IRONBENCH_NCCL_CALL(ncclBroadcast(t.data_ptr(), t.data_ptr(),
                                      static_cast<std::size_t>(t.numel()) * t.element_size(), ncclUint8, 0, comm_,
                                      stream.stream()));
  }
  double sum(double value) override { return group_->sum(value); }
  double max(double value) override { return group_->max(value); }

 private:
  std::unique_ptr<mpi_group> group_;
  torch::Device device_;
  c10::cuda::CUDAGuard guard_;
  c10::cuda::CUDAStream comm_stream_;
  ncclComm_t comm_ = nullptr;
  std::string version_;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<gradient_transport> nccl_gradient_transport(int participants, torch::Device device) {
  if (!device.is_cuda()) throw std::invalid_argument("NCCL gradient exchange needs a GPU device");
  auto group = mpi_group::first_ranks(participants);
  if (!group) return nullptr;
  return std::make_unique<nccl_transport>(std::move(group), device);
}

}  // namespace ironbench::train
