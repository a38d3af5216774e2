// What `ironbench train` is asked for (a train_request, as given) and the checks and choices
// that turn it into a plan: the batch sizes and data-parallel rank counts to sweep, the
// device (with its fallback to the CPU), and the train_settings of every case. No libtorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "train/train_settings.hpp"

namespace ironbench::train {

/// A training sweep as asked for. Lists, ranges and names are the command line's text; a
/// zero model override keeps the preset's value.
struct train_request {
  std::string workload = "gpt";  ///< mlp, gpt or lora
  std::string model = "small";   ///< a GPT preset, or custom
  std::int64_t layers = 0, heads = 0, d_model = 0, d_ff = 0, seq_len = 0, vocabulary = 0;
  std::string widths = "4096-8192-8192-4096";  ///< mlp: layer widths
  std::string batch = "8";                     ///< per-device batch sizes: list or range
  std::string scaling;                         ///< data-parallel rank counts (empty: the job's)
  std::string device = "auto";                 ///< auto, cpu, cuda, gpu, cuda:N or hip:N
  std::string dtype = "auto";                  ///< fp32, bf16, fp16; auto = bf16 on GPUs, fp32 on CPUs
  std::string lora_targets = "qkv,proj";
  std::int64_t lora_rank = 8;
  double lora_alpha = 16;
  bool fused_optimizer = true;
  int threads = 0;                ///< CPU threads per rank (0: the node's cores / its ranks)
  std::string timeout = "1800s";  ///< end the run when a step makes no progress for this long
  std::string inject_fault;       ///< --inject-fault: hang@RANK or exit@RANK (comm/injected_fault.hpp)
  train_settings settings;        ///< the rest (steps, optimizer, data, buckets) as they are
};

/// The values of --NAME given as `text` (a list or range such as 1,16,64 or 1:8:x2).
[[nodiscard]] std::vector<std::int64_t> parse_train_counts(const std::string& name, const std::string& text);

/// mlp layer widths "4096-8192-8192-4096".
[[nodiscard]] std::vector<std::int64_t> parse_mlp_widths(const std::string& text);

/// The settings of `request` (batch left at its first case's to the caller), on a GPU when
/// `on_gpu`. Throws usage_error for an unknown workload or model preset.
[[nodiscard]] train_settings settings_for(const train_request& request, bool on_gpu);

/// Throws usage_error unless every batch is at least 1.
void check_batches(const std::vector<std::int64_t>& batches);

/// Throws usage_error when a rank count of `scaling` is below 1 or above `world_size`, the
/// ranks the job has.
void check_scaling(const std::vector<std::int64_t>& scaling, int world_size);

/// The device a training rank runs on: the CPU, or GPU `index`.
struct device_choice {
  bool gpu = false;
  int index = 0;
};

/// Chooses the device `text` names (auto: this rank's GPU `default_gpu` where there are
/// `gpus`, else the CPU). Throws usage_error for a GPU that is not there; `torch_detail`
/// ("libtorch 2.5.1, a CPU-only build") ends the message when there is none at all.
[[nodiscard]] device_choice choose_train_device(const std::string& text, int gpus, int default_gpu,
                                                const std::string& torch_detail);

/// Throws usage_error for a dtype `device` cannot train in (fp16 on CPUs).
void check_dtype(const train_settings& settings, const device_choice& device);

/// The device_info among `devices` (ironbench's own enumeration) of the training device:
/// cuda:N, or hip:N where libtorch runs on ROCm (`hip`), or the CPU; a description of its
/// own where the enumeration has none.
[[nodiscard]] core::device_info measured_device(const std::vector<core::device_info>& devices,
                                                const device_choice& device, bool hip);

}  // namespace ironbench::train
