// tp_infer on the CPU: tp_cpu_rank (OpenBLAS fp32), gathering over the MPI world.
#include <fmt/format.h>

#include <algorithm>

#include "benchmarks/tp/tp_device.hpp"
#include "benchmarks/tp/tp_forward_timing.hpp"
#include "blas/openblas.hpp"

namespace ironbench::benchmarks {
namespace {

class cpu_device final : public tp_device {
 public:
  cpu_device(std::shared_ptr<comm::bootstrap> world, const tp_passes& passes)
      : world_(std::move(world)), passes_(passes) {}

  tp_timing measure_sharded(const tp_shape& shape, const std::vector<std::int64_t>& rows, tp_check& check) override {
    tp_cpu_rank model(shape, world_->rank());
    const auto gather = [&](const float* send, float* receive, std::size_t count) {
      world_->all_gather_bytes(send, receive, count * sizeof(float));
    };
    return measure_shard(model, shape, gather, passes_, *world_, rows, check);
  }

  tp_timing measure_alone(const tp_shape& shape, const std::vector<std::int64_t>& rows, tp_check& check) override {
    tp_cpu_rank alone(shape, 0);
    const auto copy = [](const float* send, float* receive, std::size_t count) { std::copy_n(send, count, receive); };
    return measure_whole(alone, shape, copy, passes_, rows, check);
  }

  std::string compute() const override {
    return fmt::format("OpenBLAS fp32, {} threads per rank", blas::openblas_threads());
  }
  std::string collectives() const override { return world_->description() + " (host buffers)"; }
  std::string single_device() const override { return "the same model on rank 0 alone, with rank 0's threads"; }

 private:
  std::shared_ptr<comm::bootstrap> world_;
  tp_passes passes_;
};

}  // namespace

std::unique_ptr<tp_device> tp_cpu_device(std::shared_ptr<comm::bootstrap> world, const tp_passes& passes) {
  return std::make_unique<cpu_device>(std::move(world), passes);
}

}  // namespace ironbench::benchmarks
