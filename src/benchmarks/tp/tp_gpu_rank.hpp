// One rank's part of dstack's toy tensor-parallel model on a GPU: the same model as
// tp_cpu_rank (tp_model.hpp), with fp32 GEMMs (FP32 compute, no TF32) through cuBLAS or
// rocBLAS, ReLU by a kernel, and the all_gather handed in (NCCL/RCCL on device memory).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "benchmarks/tp/tp_model.hpp"

namespace ironbench::benchmarks {

class tp_gpu_rank {
 public:
  /// Builds rank `rank`'s shard of `shape` on GPU `gpu` (made current for this thread).
  tp_gpu_rank(const tp_shape& shape, int rank, int gpu);
  ~tp_gpu_rank();
  tp_gpu_rank(const tp_gpu_rank&) = delete;
  tp_gpu_rank& operator=(const tp_gpu_rank&) = delete;

  /// All-gathers `count` floats of device memory from every rank (rank r's block lands at
  /// r x count) and returns once the result is in `receive`.
  using gather_function = std::function<void(const float* send, float* receive, std::size_t count)>;

  /// One forward pass, complete on the device when it returns. Returns the seconds spent in
  /// the gather (host clock, the GEMM before it finished first).
  double forward(const gather_function& gather);

  /// Z, copied to the host.
  [[nodiscard]] std::vector<float> output() const;

  /// The gather of a single device: a device-to-device copy.
  [[nodiscard]] static gather_function local_gather();

  /// What computes, known before any rank is made (the run's settings.compute):
  /// "cublas GemmEx, default algorithm, fp32 (FP32 compute, no TF32)".
  [[nodiscard]] static std::string description();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace ironbench::benchmarks
