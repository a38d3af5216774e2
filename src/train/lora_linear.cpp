#include "train/lora_linear.hpp"

#include <cmath>

namespace ironbench::train {

lora_linear_impl::lora_linear_impl(std::int64_t in_features, std::int64_t out_features)
    : base_(register_module("base", torch::nn::Linear(in_features, out_features))) {}

void lora_linear_impl::add_adapter(std::int64_t rank, double scale) {
  base_->weight.requires_grad_(false);
  base_->bias.requires_grad_(false);
  const auto in = base_->weight.size(1);
  const auto out = base_->weight.size(0);
  const auto options = base_->weight.options();
  lora_a_ = register_parameter("lora_a", torch::empty({rank, in}, options));
  torch::nn::init::kaiming_uniform_(lora_a_, std::sqrt(5.0));
  lora_b_ = register_parameter("lora_b", torch::zeros({out, rank}, options));
  scale_ = scale;
}

torch::Tensor lora_linear_impl::forward(const torch::Tensor& x) {
  auto y = base_->forward(x);
  if (!has_adapter()) return y;
  return y + scale_ * torch::nn::functional::linear(torch::nn::functional::linear(x, lora_a_), lora_b_);
}

}  // namespace ironbench::train
