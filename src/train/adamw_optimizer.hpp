// AdamW over a model's trainable parameters: libtorch's fused kernel where this libtorch has
// one for the device (PyTorch's `AdamW(fused=True)`), else torch::optim::AdamW.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace ironbench::train {

struct adamw_settings {
  double lr = 3e-4;
  double beta1 = 0.9, beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;
  bool fused = true;  ///< use the fused kernel when available
};

class adamw_optimizer {
 public:
  adamw_optimizer(std::vector<torch::Tensor> params, const adamw_settings& settings, torch::Device device);

  void step();
  /// Drops the gradients (set to none), as PyTorch's zero_grad() does by default.
  void zero_grad_to_none();

  /// "fused AdamW (at::_fused_adamw_)" or "torch::optim::AdamW (for-each loop)".
  [[nodiscard]] std::string description() const;
  [[nodiscard]] bool fused() const { return fused_; }

 private:
  std::vector<torch::Tensor> params_;
  adamw_settings settings_;
  bool fused_ = false;
  std::vector<torch::Tensor> exp_avgs_, exp_avg_sqs_, steps_;
  std::unique_ptr<torch::optim::AdamW> fallback_;
};

}  // namespace ironbench::train
