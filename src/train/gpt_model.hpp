// A GPT-style decoder in libtorch, the model `ironbench train gpt` and `train lora` run:
// token and position embeddings, L pre-norm blocks (LayerNorm, causal multi-head attention
// through scaled_dot_product_attention, residual; LayerNorm, Linear-GELU(tanh)-Linear,
// residual), a final LayerNorm and logits from the tied token embedding. Weights start
// N(0, 0.02) with zero biases (GPT-2's initialisation).
#pragma once

#include <torch/torch.h>

#include "train/gpt_shape.hpp"
#include "train/lora_linear.hpp"
#include "train/lora_spec.hpp"

namespace ironbench::train {

class gpt_block_impl : public torch::nn::Module {
 public:
  explicit gpt_block_impl(const gpt_shape& shape);
  torch::Tensor forward(const torch::Tensor& x);
  /// The linear layer a LoRA target names.
  [[nodiscard]] lora_linear& layer(lora_target target);

 private:
  std::int64_t heads_;
  torch::nn::LayerNorm ln_attention_{nullptr}, ln_mlp_{nullptr};
  lora_linear qkv_{nullptr}, proj_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE_IMPL(gpt_block, gpt_block_impl);

class gpt_model_impl : public torch::nn::Module {
 public:
  explicit gpt_model_impl(const gpt_shape& shape);

  /// Logits [batch, seq, vocabulary] for token ids [batch, seq].
  torch::Tensor forward(const torch::Tensor& tokens);
  /// Mean next-token cross-entropy of `forward(tokens)` against `targets`.
  torch::Tensor loss(const torch::Tensor& tokens, const torch::Tensor& targets);

  /// Recompute each block's activations in the backward pass instead of keeping them.
  void set_activation_checkpointing(bool on) { checkpointing_ = on; }

  /// Freezes every weight and adds adapters to the targeted layers of every block.
  void add_lora(const lora_spec& spec);

  [[nodiscard]] const gpt_shape& shape() const { return shape_; }

 private:
  gpt_shape shape_;
  bool checkpointing_ = false;
  torch::nn::Embedding token_embedding_{nullptr}, position_embedding_{nullptr};
  std::vector<gpt_block> blocks_;
  torch::nn::LayerNorm ln_final_{nullptr};
};
TORCH_MODULE_IMPL(gpt_model, gpt_model_impl);

}  // namespace ironbench::train
