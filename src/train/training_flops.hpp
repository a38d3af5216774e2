// Model FLOPs of one training step, the numbers behind TFLOPS and MFU (docs/metrics.md,
// "Training"). They count the model's matrix work, forward and backward, not what a kernel
// or activation checkpointing's recomputation actually executes.
#pragma once

#include <cstdint>
#include <vector>

#include "train/gpt_shape.hpp"
#include "train/lora_spec.hpp"

namespace ironbench::train {

/// GPT, every weight trained: 6 N + 12 L H Q T per token (N from
/// non_embedding_position_parameters; 2 N forward, 4 N backward; 12 L H Q T for the attention
/// scores and their weighted sum, forward and backward).
[[nodiscard]] double gpt_flops_per_token(const gpt_shape& shape);

/// GPT with LoRA adapters and a frozen base: 4 N + 6 N_lora + 12 L H Q T per token. Frozen
/// weights need the forward product and the input gradient (2 N + 2 N) but no weight
/// gradient; adapters need all three (6 N_lora).
[[nodiscard]] double lora_flops_per_token(const gpt_shape& shape, const lora_spec& spec);

/// A stack of Linear layers with widths w0-w1-...-wk: 6 x sum(w_i x w_{i+1}) per sample.
[[nodiscard]] double mlp_flops_per_sample(const std::vector<std::int64_t>& widths);

/// Parameters of that stack (weights and biases).
[[nodiscard]] std::int64_t mlp_parameters(const std::vector<std::int64_t>& widths);

/// Model FLOP utilisation: achieved FLOP/s over the dense peak of the dtype used (0..1).
[[nodiscard]] double model_flops_utilisation(double achieved_flops_per_s, double peak_flops_per_s);

/// Data-parallel scaling efficiency at equal per-device batch: tput(n) / (n x tput(1)).
[[nodiscard]] double scaling_efficiency(double throughput_n, int devices, double throughput_1);

}  // namespace ironbench::train
