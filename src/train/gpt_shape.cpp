#include "train/gpt_shape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.hpp"

namespace ironbench::train {

std::string gpt_shape::invalid_reason() const {
  if (layers < 1 || heads < 1 || d_model < 1 || d_ff < 1 || vocabulary < 2 || seq_len < 2) {
    return fmt::format(
        "a GPT shape needs layers, heads, d_model, d_ff >= 1 and vocabulary, seq_len >= 2 "
        "(got L={} H={} d_model={} d_ff={} vocabulary={} seq_len={})",
        layers, heads, d_model, d_ff, vocabulary, seq_len);
  }
  if (d_model % heads != 0) return fmt::format("d_model {} is not a multiple of heads {}", d_model, heads);
  return {};
}

const std::vector<gpt_shape>& gpt_presets() {
  // MI350X training report, table "Model Configurations" (its sequence lengths: 512 up to 3B,
  // 1024 for 7B and 13B).
  static const std::vector<gpt_shape> presets = {
      {"small", 6, 6, 384, 1536, gpt2_vocabulary, 512},    {"medium", 12, 12, 768, 3072, gpt2_vocabulary, 512},
      {"large", 24, 16, 1024, 4096, gpt2_vocabulary, 512}, {"xl", 36, 20, 1280, 5120, gpt2_vocabulary, 512},
      {"1.5b", 48, 24, 1536, 6144, gpt2_vocabulary, 512},  {"3b", 32, 32, 2560, 10240, gpt2_vocabulary, 512},
      {"7b", 32, 32, 4096, 11008, gpt2_vocabulary, 1024},  {"13b", 40, 40, 5120, 13824, gpt2_vocabulary, 1024},
  };
  return presets;
}

std::optional<gpt_shape> find_gpt_preset(const std::string& name) {
  const std::string lower = ascii_lower(name);
  for (const auto& preset : gpt_presets()) {
    if (preset.name == lower) return preset;
  }
  return std::nullopt;
}

std::int64_t block_parameters(const gpt_shape& s) {
  const std::int64_t d = s.d_model;
  const std::int64_t layer_norms = 2 * (2 * d);
  const std::int64_t qkv = d * 3 * d + 3 * d;
  const std::int64_t projection = d * d + d;
  const std::int64_t mlp = d * s.d_ff + s.d_ff + s.d_ff * d + d;
  return layer_norms + qkv + projection + mlp;
}

std::int64_t non_embedding_position_parameters(const gpt_shape& s) {
  return s.layers * block_parameters(s) + 2 * s.d_model + s.vocabulary * s.d_model;
}

std::int64_t total_parameters(const gpt_shape& s) {
  return non_embedding_position_parameters(s) + s.seq_len * s.d_model;
}

}  // namespace ironbench::train
