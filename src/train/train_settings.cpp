#include "train/train_settings.hpp"

#include <fmt/format.h>

#include "train/training_flops.hpp"

namespace ironbench::train {

const char* to_string(workload w) {
  switch (w) {
    case workload::mlp: return "mlp";
    case workload::gpt: return "gpt";
    case workload::lora: return "lora";
  }
  return "?";
}

double train_settings::flops_per_sample() const {
  switch (kind) {
    case workload::mlp: return mlp_flops_per_sample(mlp_widths);
    case workload::gpt: return gpt_flops_per_token(shape) * static_cast<double>(shape.seq_len);
    case workload::lora: return lora_flops_per_token(shape, lora) * static_cast<double>(shape.seq_len);
  }
  return 0;
}

std::string train_settings::invalid_reason() const {
  if (batch < 1) return fmt::format("batch must be >= 1 (got {})", batch);
  if (grad_accum < 1) return fmt::format("--grad-accum must be >= 1 (got {})", grad_accum);
  if (steps < 2) return fmt::format("--steps must be >= 2 (got {}): the loss must be seen to fall", steps);
  if (warmup_steps < 0) return fmt::format("--warmup-steps must be >= 0 (got {})", warmup_steps);
  if (dtype != "fp32" && dtype != "bf16" && dtype != "fp16") {
    return fmt::format("unknown --dtype '{}' (use fp32, bf16 or fp16)", dtype);
  }
  if (data_batches < 1) return "--data-batches must be >= 1";
  if (bucket_megabytes <= 0) return "--bucket-mb must be positive";
  if (lr <= 0) return "--lr must be positive";
  if (kind == workload::mlp) {
    if (mlp_widths.size() < 2) return "--widths needs at least two widths (input-output)";
    for (const auto w : mlp_widths) {
      if (w < 1) return fmt::format("--widths must be positive (got {})", w);
    }
    return {};
  }
  if (auto why = shape.invalid_reason(); !why.empty()) return why;
  if (kind == workload::lora) {
    if (lora.rank < 1) return fmt::format("--lora-rank must be >= 1 (got {})", lora.rank);
    if (lora.alpha <= 0) return "--lora-alpha must be positive";
  }
  return {};
}

}  // namespace ironbench::train
