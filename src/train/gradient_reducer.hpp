// Data parallelism as PyTorch's DistributedDataParallel does it: parameters broadcast from
// rank 0 at the start; each parameter's gradient lives in a flat bucket (~25 MB, filled in
// reverse parameter order, the order the backward pass produces them); when the last gradient
// of a bucket has been accumulated, the bucket's all-reduce starts while the backward pass
// goes on; finish() waits for every bucket and divides by the ranks (the mean gradient).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "train/gradient_transport.hpp"
#include "train/torch_compat.hpp"

namespace ironbench::train {

class gradient_reducer {
 public:
  /// `params` are the trainable parameters (their .grad becomes a view into a bucket).
  gradient_reducer(std::vector<torch::Tensor> params, gradient_transport& transport, double bucket_megabytes);
  ~gradient_reducer();
  gradient_reducer(const gradient_reducer&) = delete;
  gradient_reducer& operator=(const gradient_reducer&) = delete;

  /// Copies rank 0's parameters to every rank.
  void broadcast_parameters();
  /// Whether the next backward pass reduces (false for the micro-batches of gradient
  /// accumulation before the last, like DDP's no_sync()).
  void set_reduce(bool on) { reduce_ = on; }
  /// After the backward pass: starts buckets no hook started, waits, divides by the ranks.
  void finish();
  /// Zeroes every bucket (the gradients stay views into them).
  void zero_grad();

  [[nodiscard]] std::size_t bucket_count() const { return buckets_.size(); }

 private:
  struct bucket {
    torch::Tensor flat;
    std::size_t parameters = 0;
    std::size_t ready = 0;
    bool started = false;
  };
  void on_gradient_ready(std::size_t bucket_index);

  std::vector<torch::Tensor> params_;
  gradient_transport& transport_;
  std::vector<bucket> buckets_;
  std::vector<compat::gradient_accumulator> accumulators_;  // keeps the hooks alive
  std::size_t next_to_start_ = 0;
  bool reduce_ = true;
};

}  // namespace ironbench::train
