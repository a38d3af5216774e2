// How data-parallel ranks exchange gradients: MPI for CPU ranks (host memory), NCCL or RCCL
// for GPU ranks (device memory). The reducer only sees this interface.
#pragma once

#include <torch/torch.h>

#include <string>

namespace ironbench::train {

class gradient_transport {
 public:
  virtual ~gradient_transport() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// "MPI (Open MPI v4.1.4), host memory" ...
  [[nodiscard]] virtual std::string description() const = 0;
  /// Starts an in-place sum of a contiguous fp32 tensor over every rank; returns at once.
  virtual void start_sum(torch::Tensor& flat) = 0;
  /// Lets started sums make progress (called from the backward pass between buckets).
  virtual void progress() = 0;
  /// Waits until every started sum has finished.
  virtual void wait_all() = 0;
  /// Rank 0's contents of `t` on every rank (blocking).
  virtual void broadcast(torch::Tensor& t) = 0;
  /// The sum of one number over every rank (blocking; the loss curve).
  [[nodiscard]] virtual double sum(double value) = 0;
  /// The largest of one number over every rank (blocking; equality checks).
  [[nodiscard]] virtual double max(double value) = 0;
};

}  // namespace ironbench::train
