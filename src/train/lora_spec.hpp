// LoRA (low-rank adaptation) as configured for a GPT-style model: which linear layers get an
// adapter, its rank r and its scale alpha / r. The base model stays frozen; only the adapters
// train: W x + (alpha / r) B A x, with A (r x in) random and B (out x r) zero at the start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/gpt_shape.hpp"

namespace ironbench::train {

/// The linear layers of a block that can carry an adapter.
enum class lora_target { qkv, proj, fc1, fc2 };

[[nodiscard]] const char* to_string(lora_target target);

struct lora_spec {
  std::int64_t rank = 8;
  double alpha = 16;
  std::vector<lora_target> targets = {lora_target::qkv, lora_target::proj};

  [[nodiscard]] double scale() const { return alpha / static_cast<double>(rank); }
  [[nodiscard]] std::string targets_text() const;  ///< "qkv,proj"
};

/// Parses "qkv,proj,fc1,fc2" (also "all", and the Hugging Face names q_proj/k_proj/v_proj for
/// qkv, o_proj/out_proj for proj, up_proj/c_fc for fc1, down_proj/c_proj for fc2). Throws
/// usage_error naming the unknown module.
[[nodiscard]] std::vector<lora_target> parse_lora_targets(const std::string& text);

/// (in, out) of a target's base linear layer in `shape`.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> lora_target_dims(const gpt_shape& shape, lora_target target);

/// Adapter parameters over every block: sum over targets of r x (in + out), times L.
[[nodiscard]] std::int64_t lora_trainable_parameters(const gpt_shape& shape, const lora_spec& spec);

}  // namespace ironbench::train
