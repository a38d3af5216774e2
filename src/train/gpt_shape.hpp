// The shape of a GPT-style decoder (token + position embedding, pre-norm blocks of causal
// self-attention and a two-matrix MLP, final LayerNorm, output head tied to the token
// embedding) and the eight size presets of the MI350X training report (Small .. 13B).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ironbench::train {

/// GPT-2's vocabulary: the size every preset uses.
inline constexpr std::int64_t gpt2_vocabulary = 50257;

struct gpt_shape {
  std::string name = "custom";  ///< preset name ("small" ... "13b") or "custom"
  std::int64_t layers = 6;      ///< L, transformer blocks
  std::int64_t heads = 6;       ///< H, attention heads
  std::int64_t d_model = 384;   ///< H x Q, the residual width
  std::int64_t d_ff = 1536;     ///< the MLP's inner width
  std::int64_t vocabulary = gpt2_vocabulary;
  std::int64_t seq_len = 512;  ///< T, tokens per sequence (also the position table's size)

  /// Q, the width of one head (d_model / heads).
  [[nodiscard]] std::int64_t head_dim() const { return d_model / heads; }
  /// Why the shape cannot be built (empty when it can): positive sizes, heads dividing d_model.
  [[nodiscard]] std::string invalid_reason() const;
};

/// The presets, smallest first: small, medium, large, xl, 1.5b, 3b, 7b, 13b.
[[nodiscard]] const std::vector<gpt_shape>& gpt_presets();

/// The preset called `name` (case-insensitive), if any.
[[nodiscard]] std::optional<gpt_shape> find_gpt_preset(const std::string& name);

/// Parameters of one block: two LayerNorms, the fused QKV projection, the output projection
/// and the MLP, all with biases.
[[nodiscard]] std::int64_t block_parameters(const gpt_shape& shape);

/// N: every parameter except the position embedding (the convention of the FLOPs formula):
/// L blocks, the final LayerNorm and the token embedding (which is also the output head).
[[nodiscard]] std::int64_t non_embedding_position_parameters(const gpt_shape& shape);

/// Every parameter, the position embedding (T x d_model) included.
[[nodiscard]] std::int64_t total_parameters(const gpt_shape& shape);

}  // namespace ironbench::train
