#include "train/torch_compat.hpp"

#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/version.h>

#include <new>

#if IRONBENCH_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/cuda.h>
#endif

#define IRONBENCH_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace ironbench::train::compat {

std::string torch_version() { return TORCH_VERSION; }

torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
#if IRONBENCH_TORCH_AT_LEAST(2, 0)
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
#elif !IRONBENCH_TORCH_AT_LEAST(1, 13)
#error "ironbench's training workloads need libtorch 1.13 or newer"
#else
  // 1.13 has the fused op only as a private, math-only operator: it returns (output, weights).
  return std::get<0>(at::_scaled_dot_product_attention(q, k, v, {}, 0.0, false, /*is_causal=*/true));
#endif
}

std::string attention_implementation() {
#if IRONBENCH_TORCH_AT_LEAST(2, 0)
  return "at::scaled_dot_product_attention (flash / memory-efficient / math, chosen by libtorch)";
#else
  return "at::_scaled_dot_product_attention (libtorch 1.13: math kernel)";
#endif
}

namespace {
#if IRONBENCH_TORCH_AT_LEAST(2, 4)
bool autocast_enabled(torch::DeviceType t) { return at::autocast::is_autocast_enabled(t); }
torch::ScalarType autocast_dtype(torch::DeviceType t) { return at::autocast::get_autocast_dtype(t); }
void set_autocast(torch::DeviceType t, bool enabled, torch::ScalarType dtype) {
  at::autocast::set_autocast_dtype(t, dtype);
  at::autocast::set_autocast_enabled(t, enabled);
}
#else
bool autocast_enabled(torch::DeviceType t) {
  return t == torch::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
}
torch::ScalarType autocast_dtype(torch::DeviceType t) {
  return t == torch::kCPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
}
void set_autocast(torch::DeviceType t, bool enabled, torch::ScalarType dtype) {
  if (t == torch::kCPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  }
}
#endif
}  // namespace

autocast_scope::autocast_scope(torch::Device device, std::optional<torch::ScalarType> dtype)
    : device_type_(device.type()), enabled_(dtype.has_value()) {
  if (!enabled_) return;
  previous_enabled_ = autocast_enabled(device_type_);
  previous_dtype_ = autocast_dtype(device_type_);
  set_autocast(device_type_, true, *dtype);
  at::autocast::increment_nesting();
}

autocast_scope::~autocast_scope() {
  if (!enabled_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast(device_type_, previous_enabled_, previous_dtype_);
}

std::optional<torch::ScalarType> current_autocast(torch::Device device) {
  if (!autocast_enabled(device.type())) return std::nullopt;
  return autocast_dtype(device.type());
}

void synchronize(torch::Device device) {
#if IRONBENCH_TORCH_CUDA
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
#else
  (void)device;
#endif
}

gradient_accumulator on_gradient_accumulated(const torch::Tensor& param, std::function<void()> ready) {
  auto accumulator = torch::autograd::impl::grad_accumulator(param);
  accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
      [ready = std::move(ready)](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
        ready();
        return outputs;
      }));
  return accumulator;
}

bool fused_adamw_available(torch::Device device) {
#if IRONBENCH_TORCH_AT_LEAST(2, 4)
  return device.is_cuda() || device.is_cpu();
#elif IRONBENCH_TORCH_AT_LEAST(2, 0)
  return device.is_cuda();
#else
  (void)device;
  return false;
#endif
}

void fused_adamw_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads,
                      std::vector<torch::Tensor>& exp_avgs, std::vector<torch::Tensor>& exp_avg_sqs,
                      std::vector<torch::Tensor>& steps, double lr, double beta1, double beta2, double weight_decay,
                      double eps) {
#if IRONBENCH_TORCH_AT_LEAST(2, 0)
  // Like torch.optim.AdamW(fused=True): the kernel increments nothing; the steps go first.
  at::_foreach_add_(steps, 1);
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, lr, beta1, beta2, weight_decay, eps,
                    /*amsgrad=*/false, /*maximize=*/false);
#else
  (void)params, (void)grads, (void)exp_avgs, (void)exp_avg_sqs, (void)steps, (void)lr, (void)beta1, (void)beta2,
      (void)weight_decay, (void)eps;
  throw std::logic_error("fused AdamW needs libtorch 2.0 or newer");
#endif
}

#if IRONBENCH_TORCH_CUDA
namespace {
// The caching allocator's statistics throw until it has been initialised, which the first
// allocation on a device does; "cuda" without an index means the current device.
c10::DeviceIndex initialised_allocator_index(torch::Device device) {
  (void)torch::empty({1}, torch::TensorOptions().device(device).dtype(torch::kUInt8));
  return device.has_index() ? device.index() : c10::cuda::current_device();
}
}  // namespace
#endif

void reset_peak_memory(torch::Device device) {
#if IRONBENCH_TORCH_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(initialised_allocator_index(device));
#else
  (void)device;
#endif
}

std::optional<device_memory> peak_memory(torch::Device device) {
#if IRONBENCH_TORCH_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(initialised_allocator_index(device));
    const auto aggregate = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    return device_memory{static_cast<double>(stats.allocated_bytes[aggregate].peak),
                         static_cast<double>(stats.reserved_bytes[aggregate].peak)};
  }
#else
  (void)device;
#endif
  return std::nullopt;
}

void release_cached_memory(torch::Device device) {
#if IRONBENCH_TORCH_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
#else
  (void)device;
#endif
}

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) return true;
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return true;
  const std::string what = e.what();
  return what.find("not enough memory") != std::string::npos || what.find("out of memory") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos;
}

int gpu_count() {
#if IRONBENCH_TORCH_CUDA
  return static_cast<int>(torch::cuda::device_count());
#else
  return 0;
#endif
}

}  // namespace ironbench::train::compat
