// A Linear layer that can carry a LoRA adapter: y = W x + b + (alpha / r) B (A x). Adding the
// adapter freezes W and b; A starts Kaiming-uniform and B at zero, so the adapted layer starts
// equal to the base layer (as in the LoRA paper and Hugging Face PEFT).
#pragma once

#include <torch/torch.h>

namespace ironbench::train {

class lora_linear_impl : public torch::nn::Module {
 public:
  lora_linear_impl(std::int64_t in_features, std::int64_t out_features);

  /// Freezes the base weight and bias and adds A (rank x in) and B (out x rank).
  void add_adapter(std::int64_t rank, double scale);
  [[nodiscard]] bool has_adapter() const { return lora_a_.defined(); }

  torch::Tensor forward(const torch::Tensor& x);

  [[nodiscard]] torch::nn::Linear& base() { return base_; }

 private:
  torch::nn::Linear base_;
  torch::Tensor lora_a_, lora_b_;
  double scale_ = 0;
};
TORCH_MODULE_IMPL(lora_linear, lora_linear_impl);

}  // namespace ironbench::train
