// The MI350X report's "simple training loop": a stack of Linear layers with ReLU between them
// (widths 4096-8192-8192-4096 there), trained with mean squared error on random data.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace ironbench::train {

class mlp_model_impl : public torch::nn::Module {
 public:
  explicit mlp_model_impl(const std::vector<std::int64_t>& widths);
  torch::Tensor forward(torch::Tensor x);

 private:
  std::vector<torch::nn::Linear> layers_;
};
TORCH_MODULE_IMPL(mlp_model, mlp_model_impl);

}  // namespace ironbench::train
