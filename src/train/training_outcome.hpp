// What one training measurement produced: per-step times and losses, memory peaks, and the
// checks that make the numbers trustworthy. Plain data (no libtorch), read by the results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ironbench::train {

struct step_record {
  double seconds = 0;    ///< wall time of the optimizer step, device work included
  double loss = 0;       ///< mean loss of the step's global batch (over every rank)
  bool skipped = false;  ///< fp16: the gradients overflowed and the update was skipped
};

/// A GPU caching allocator's peaks since the measurement started (bytes).
struct device_memory {
  double peak_allocated_bytes = 0;
  double peak_reserved_bytes = 0;
};

struct training_outcome {
  std::vector<step_record> steps;  ///< warm-up steps first
  int warmup_steps = 0;
  bool interrupted = false;  ///< stopped by Ctrl-C (SIGINT) or SIGTERM before the last step
  bool out_of_memory = false;
  std::string out_of_memory_message;        ///< the first line of libtorch's error
  std::optional<device_memory> gpu_memory;  ///< GPU only
  double host_peak_rss_bytes = 0;           ///< the process's peak resident memory
  std::int64_t parameters = 0;
  std::int64_t trainable_parameters = 0;
  std::string optimizer;             ///< which AdamW ran
  std::string attention;             ///< which attention kernel family (gpt, lora)
  std::string libtorch;              ///< libtorch version
  std::size_t gradient_buckets = 0;  ///< data parallel only
  /// lora: whether the frozen weights kept their values (sum and sum of squares per tensor).
  std::optional<bool> frozen_unchanged;
  /// Order-weighted sum and sum of squares of the trainable parameters after the last step
  /// (comparing runs: data parallel against one rank with the doubled batch).
  std::optional<std::pair<double, double>> final_checksum;
  /// Data parallel: whether every rank ended with the same trainable parameters.
  std::optional<bool> replicas_identical;

  /// The timed steps (after the warm-up).
  [[nodiscard]] std::vector<step_record> timed() const {
    if (static_cast<std::size_t>(warmup_steps) >= steps.size()) return {};
    return {steps.begin() + warmup_steps, steps.end()};
  }
};

}  // namespace ironbench::train
