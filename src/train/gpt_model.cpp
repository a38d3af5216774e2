#include "train/gpt_model.hpp"

#include <fmt/format.h>

#include "train/activation_checkpoint.hpp"
#include "train/torch_compat.hpp"

namespace ironbench::train {

namespace {
void init_gpt2(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& item : module.named_parameters()) {
    const auto& name = item.key();
    auto& p = item.value();
    if (name.find("lora_") != std::string::npos) continue;
    if (name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0) {
      p.zero_();
    } else if (name.find("ln_") != std::string::npos) {
      p.fill_(1.0);
    } else {
      p.normal_(0.0, 0.02);
    }
  }
}
}  // namespace

gpt_block_impl::gpt_block_impl(const gpt_shape& s) : heads_(s.heads) {
  ln_attention_ = register_module("ln_attention", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.d_model})));
  qkv_ = register_module("qkv", lora_linear(s.d_model, 3 * s.d_model));
  proj_ = register_module("proj", lora_linear(s.d_model, s.d_model));
  ln_mlp_ = register_module("ln_mlp", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.d_model})));
  fc1_ = register_module("fc1", lora_linear(s.d_model, s.d_ff));
  fc2_ = register_module("fc2", lora_linear(s.d_ff, s.d_model));
}

torch::Tensor gpt_block_impl::forward(const torch::Tensor& x) {
  const auto batch = x.size(0), seq = x.size(1), width = x.size(2);
  auto qkv = qkv_->forward(ln_attention_->forward(x)).view({batch, seq, 3, heads_, width / heads_});
  qkv = qkv.permute({2, 0, 3, 1, 4});  // [3, batch, heads, seq, head_dim]
  auto attended = compat::causal_attention(qkv[0], qkv[1], qkv[2]);
  attended = attended.transpose(1, 2).reshape({batch, seq, width});
  auto h = x + proj_->forward(attended);
  auto inner = torch::gelu(fc1_->forward(ln_mlp_->forward(h)), "tanh");
  return h + fc2_->forward(inner);
}

lora_linear& gpt_block_impl::layer(lora_target target) {
  switch (target) {
    case lora_target::qkv: return qkv_;
    case lora_target::proj: return proj_;
    case lora_target::fc1: return fc1_;
    case lora_target::fc2: return fc2_;
  }
  return qkv_;
}

gpt_model_impl::gpt_model_impl(const gpt_shape& s) : shape_(s) {
  token_embedding_ = register_module("token_embedding", torch::nn::Embedding(s.vocabulary, s.d_model));
  position_embedding_ = register_module("position_embedding", torch::nn::Embedding(s.seq_len, s.d_model));
  for (std::int64_t i = 0; i < s.layers; ++i) {
    blocks_.push_back(register_module(fmt::format("block{}", i), gpt_block(s)));
  }
  ln_final_ = register_module("ln_final", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.d_model})));
  init_gpt2(*this);
}

torch::Tensor gpt_model_impl::forward(const torch::Tensor& tokens) {
  const auto seq = tokens.size(1);
  const auto positions = torch::arange(seq, tokens.options());
  auto x = token_embedding_->forward(tokens) + position_embedding_->forward(positions);
  // A checkpointed block only gets gradients when its input asks for one (a frozen
  // embedding's output does not).
  if (checkpointing_ && !x.requires_grad()) x.requires_grad_(true);
  for (auto& block : blocks_) x = checkpointing_ ? checkpointed_forward(*block, x) : block->forward(x);
  return torch::nn::functional::linear(ln_final_->forward(x), token_embedding_->weight);
}

torch::Tensor gpt_model_impl::loss(const torch::Tensor& tokens, const torch::Tensor& targets) {
  const auto logits = forward(tokens);
  return torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), targets.reshape({-1}));
}

void gpt_model_impl::add_lora(const lora_spec& spec) {
  for (auto& p : parameters()) p.requires_grad_(false);
  for (auto& block : blocks_) {
    for (const auto target : spec.targets) block->layer(target)->add_adapter(spec.rank, spec.scale());
  }
}

}  // namespace ironbench::train
