// The one place where libtorch versions differ (Debian's 1.13 for CPUs, PyTorch's 2.x wheels
// for GPUs): attention, autocast, the fused optimizer, device memory statistics, out-of-memory
// errors. Everything else in src/train uses the C++ API both versions share.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "train/training_outcome.hpp"

namespace ironbench::train::compat {

using train::device_memory;

/// "1.13.0", "2.11.0" ...
[[nodiscard]] std::string torch_version();

/// Causal self-attention softmax(Q K^T / sqrt(Q)) V over [batch, heads, seq, head_dim]
/// tensors: scaled_dot_product_attention (flash / memory-efficient kernels where libtorch has
/// them for the device and dtype), else the unfused reference.
[[nodiscard]] torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v);

/// Which attention implementation causal_attention uses with this libtorch.
[[nodiscard]] std::string attention_implementation();

/// Mixed precision for the scope's lifetime: autocast to `dtype` (bf16 or fp16) on `device`'s
/// type. Disabled (no-op) for fp32.
class autocast_scope {
 public:
  autocast_scope(torch::Device device, std::optional<torch::ScalarType> dtype);
  ~autocast_scope();
  autocast_scope(const autocast_scope&) = delete;
  autocast_scope& operator=(const autocast_scope&) = delete;

 private:
  torch::DeviceType device_type_;
  bool enabled_ = false;
  bool previous_enabled_ = false;
  torch::ScalarType previous_dtype_ = torch::kFloat;
};

/// The autocast dtype in force on `device` now, or nullopt when autocast is off.
[[nodiscard]] std::optional<torch::ScalarType> current_autocast(torch::Device device);

/// Waits for the device's queued work (no-op on the CPU).
void synchronize(torch::Device device);

/// The autograd node that accumulates a leaf's gradient (a shared_ptr in libtorch 1.13, an
/// intrusive_ptr in newer versions); holding it keeps its hooks alive.
using gradient_accumulator = decltype(torch::autograd::impl::grad_accumulator(std::declval<const torch::Tensor&>()));

/// Calls `ready` each time the backward pass has accumulated a gradient into `param.grad()`
/// (the hook DistributedDataParallel uses). Keep the returned node as long as the hook matters.
[[nodiscard]] gradient_accumulator on_gradient_accumulated(const torch::Tensor& param, std::function<void()> ready);

/// Whether the fused AdamW kernel (_fused_adamw_) exists for `device` in this libtorch.
[[nodiscard]] bool fused_adamw_available(torch::Device device);

/// One fused AdamW update of every parameter (PyTorch's `AdamW(fused=True)`); only call where
/// fused_adamw_available. `steps` are float scalar tensors on the device, one per parameter.
void fused_adamw_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads,
                      std::vector<torch::Tensor>& exp_avgs, std::vector<torch::Tensor>& exp_avg_sqs,
                      std::vector<torch::Tensor>& steps, double lr, double beta1, double beta2, double weight_decay,
                      double eps);

/// Clears the peak counters of a GPU's caching allocator (no-op on the CPU).
void reset_peak_memory(torch::Device device);

/// The peaks since reset_peak_memory, or nullopt where libtorch has no device allocator
/// statistics (the CPU, a libtorch built without CUDA/ROCm).
[[nodiscard]] std::optional<device_memory> peak_memory(torch::Device device);

/// Returns cached blocks to the device after an out-of-memory error (no-op on the CPU).
void release_cached_memory(torch::Device device);

/// Whether `e` reports memory exhaustion (c10::OutOfMemoryError, std::bad_alloc, or
/// libtorch's CPU allocator message in versions that throw a plain c10::Error).
[[nodiscard]] bool is_out_of_memory(const std::exception& e);

/// GPUs libtorch sees (CUDA or ROCm builds), 0 elsewhere.
[[nodiscard]] int gpu_count();

}  // namespace ironbench::train::compat
