// tp_infer on a GPU: tp_gpu_rank (fp32 GEMMs on the device), gathering device memory with
// NCCL or RCCL.
#include "benchmarks/tp/tp_device.hpp"
#include "benchmarks/tp/tp_forward_timing.hpp"
#include "benchmarks/tp/tp_gpu_rank.hpp"
#include "comm/collective.hpp"
#include "comm/nccl/nccl_communicator.hpp"
#include "core/error.hpp"

namespace ironbench::benchmarks {
namespace {

// Device memory the model owns, seen by the collective backend for one call.
class device_pointer final : public comm::comm_buffer {
 public:
  device_pointer(void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }
  void write(std::size_t, const void*, std::size_t) override { throw error("device_pointer: no host writes"); }
  void read(std::size_t, void*, std::size_t) const override { throw error("device_pointer: no host reads"); }

 private:
  void* data_;
  std::size_t bytes_;
};

class gpu_device final : public tp_device {
 public:
  gpu_device(std::shared_ptr<comm::bootstrap> world, int gpu, const tp_passes& passes)
      : world_(std::move(world)),
        gpu_(gpu),
        passes_(passes),
        collectives_(comm::nccl_device_backend(world_, gpu)),
        compute_(tp_gpu_rank::description()) {}

  tp_timing measure_sharded(const tp_shape& shape, const std::vector<std::int64_t>& rows, tp_check& check) override {
    tp_gpu_rank model(shape, world_->rank(), gpu_);
    const int ranks = shape.ranks;
    const auto gather = [&](const float* send, float* receive, std::size_t count) {
      device_pointer from(const_cast<float*>(send), count * sizeof(float));
      device_pointer to(receive, count * sizeof(float) * static_cast<std::size_t>(ranks));
      const auto call = comm::shape_of(comm::collective::all_gather, to.bytes(), comm::element_type::fp32, ranks);
      (void)collectives_->run(comm::collective::all_gather, &from, to, call, comm::element_type::fp32,
                              comm::reduce_op::sum, 0);
      collectives_->synchronize();
    };
    return measure_shard(model, shape, gather, passes_, *world_, rows, check);
  }

  tp_timing measure_alone(const tp_shape& shape, const std::vector<std::int64_t>& rows, tp_check& check) override {
    tp_gpu_rank alone(shape, 0, gpu_);
    return measure_whole(alone, shape, tp_gpu_rank::local_gather(), passes_, rows, check);
  }

  std::string compute() const override { return compute_; }
  std::string collectives() const override { return collectives_->description(); }
  std::string single_device() const override { return "the same model on rank 0's GPU alone"; }

 private:
  std::shared_ptr<comm::bootstrap> world_;
  int gpu_;
  tp_passes passes_;
  std::unique_ptr<comm::collective_backend> collectives_;
  const std::string compute_;
};

}  // namespace

std::unique_ptr<tp_device> tp_gpu_device(std::shared_ptr<comm::bootstrap> world, int gpu_index,
                                         const tp_passes& passes) {
  return std::make_unique<gpu_device>(std::move(world), gpu_index, passes);
}

}  // namespace ironbench::benchmarks
