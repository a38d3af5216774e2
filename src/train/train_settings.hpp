// Everything one training measurement is configured by, with the defaults `ironbench train`
// uses. Plain data, shared by the command line, the trainer and the results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/gpt_shape.hpp"
#include "train/lora_spec.hpp"

namespace ironbench::train {

/// mlp: the Linear+ReLU stack; gpt: a decoder trained from scratch; lora: the same decoder,
/// frozen, with LoRA adapters.
enum class workload { mlp, gpt, lora };

[[nodiscard]] const char* to_string(workload w);

struct train_settings {
  workload kind = workload::gpt;
  gpt_shape shape = gpt_shape{};                                    ///< gpt and lora
  lora_spec lora;                                                   ///< lora
  std::vector<std::int64_t> mlp_widths = {4096, 8192, 8192, 4096};  ///< mlp
  std::int64_t batch = 8;      ///< sequences (rows for mlp) per device and micro-batch
  int grad_accum = 1;          ///< micro-batches per optimizer step
  int steps = 20;              ///< timed optimizer steps
  int warmup_steps = 10;       ///< untimed steps first (the Metrum AI / Dell LoRA report used 10)
  std::string dtype = "fp32";  ///< fp32, or bf16 / fp16 autocast
  bool activation_checkpointing = false;
  bool fused_optimizer = true;  ///< fused AdamW where libtorch has it
  double lr = 3e-4;
  double weight_decay = 0.1;
  std::uint64_t seed = 1234;     ///< model initialisation and synthetic data
  int data_batches = 4;          ///< distinct global micro-batches, cycled
  double bucket_megabytes = 25;  ///< data-parallel gradient bucket size (DDP's default)

  /// Tokens per sequence (seq_len for gpt and lora, 1 for mlp rows).
  [[nodiscard]] std::int64_t tokens_per_sample() const { return kind == workload::mlp ? 1 : shape.seq_len; }
  /// Samples one optimizer step consumes on one device.
  [[nodiscard]] std::int64_t samples_per_step_per_device() const { return batch * grad_accum; }
  /// Model FLOPs of one sample (sequence or row), forward and backward (training_flops.hpp).
  [[nodiscard]] double flops_per_sample() const;
  /// Why these settings cannot run (empty when they can).
  [[nodiscard]] std::string invalid_reason() const;
};

}  // namespace ironbench::train
