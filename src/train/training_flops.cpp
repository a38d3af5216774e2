#include "train/training_flops.hpp"

namespace ironbench::train {

namespace {
double attention_flops_per_token(const gpt_shape& s) {
  return 12.0 * static_cast<double>(s.layers) * static_cast<double>(s.heads) * static_cast<double>(s.head_dim()) *
         static_cast<double>(s.seq_len);
}
}  // namespace

double gpt_flops_per_token(const gpt_shape& s) {
  return 6.0 * static_cast<double>(non_embedding_position_parameters(s)) + attention_flops_per_token(s);
}

double lora_flops_per_token(const gpt_shape& s, const lora_spec& spec) {
  return 4.0 * static_cast<double>(non_embedding_position_parameters(s)) +
         6.0 * static_cast<double>(lora_trainable_parameters(s, spec)) + attention_flops_per_token(s);
}

double mlp_flops_per_sample(const std::vector<std::int64_t>& widths) {
  double weights = 0;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) weights += static_cast<double>(widths[i] * widths[i + 1]);
  return 6.0 * weights;
}

std::int64_t mlp_parameters(const std::vector<std::int64_t>& widths) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) n += widths[i] * widths[i + 1] + widths[i + 1];
  return n;
}

double model_flops_utilisation(double achieved, double peak) { return peak > 0 ? achieved / peak : 0; }

double scaling_efficiency(double throughput_n, int devices, double throughput_1) {
  if (devices < 1 || throughput_1 <= 0) return 0;
  return throughput_n / (static_cast<double>(devices) * throughput_1);
}

}  // namespace ironbench::train
