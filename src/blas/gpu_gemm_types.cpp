#include "blas/gpu_gemm_types.hpp"

#include <fmt/format.h>

#include <cmath>

#include "device/gpu/gpu_specs.hpp"

namespace ironbench::blas {

const char* to_string(gpu_dtype type) {
  switch (type) {
    case gpu_dtype::fp32: return "fp32";
    case gpu_dtype::tf32: return "tf32";
    case gpu_dtype::fp16: return "fp16";
    case gpu_dtype::bf16: return "bf16";
    case gpu_dtype::fp8: return "fp8";
  }
  return "unknown";
}

const std::vector<gpu_dtype>& all_gpu_dtypes() {
  static const std::vector<gpu_dtype> all = {gpu_dtype::fp32, gpu_dtype::tf32, gpu_dtype::fp16, gpu_dtype::bf16,
                                             gpu_dtype::fp8};
  return all;
}

std::optional<gpu_dtype> gpu_dtype_from_string(const std::string& name) {
  for (auto t : all_gpu_dtypes()) {
    if (name == to_string(t)) return t;
  }
  return std::nullopt;
}

std::size_t element_bytes(element_format format) {
  switch (format) {
    case element_format::fp32: return 4;
    case element_format::fp16:
    case element_format::bf16: return 2;
    case element_format::e4m3fn:
    case element_format::e4m3fnuz: return 1;
  }
  return 0;
}

const char* to_string(element_format format) {
  switch (format) {
    case element_format::fp32: return "fp32";
    case element_format::fp16: return "fp16";
    case element_format::bf16: return "bf16";
    case element_format::e4m3fn: return "e4m3fn";
    case element_format::e4m3fnuz: return "e4m3fnuz";
  }
  return "unknown";
}

gpu_gemm_types gpu_gemm_types_for(gpu_dtype type, bool fnuz_fp8) {
  // FP32 accumulation with some slack (2^-23); fp8 matrix units are known to accumulate with
  // about 14 significant bits between promotions (2^-13).
  const double fp32_accumulation = std::ldexp(1.0, -23);
  switch (type) {
    case gpu_dtype::fp32:
      return {element_format::fp32, element_format::fp32, false, false, {0, fp32_accumulation, std::ldexp(1.0, -24)}};
    case gpu_dtype::tf32:
      return {element_format::fp32,
              element_format::fp32,
              true,
              false,
              {2 * std::ldexp(1.0, -11), fp32_accumulation, std::ldexp(1.0, -24)}};
    case gpu_dtype::fp16:
      return {element_format::fp16, element_format::fp16, false, false, {0, fp32_accumulation, std::ldexp(1.0, -11)}};
    case gpu_dtype::bf16:
      return {element_format::bf16, element_format::bf16, false, false, {0, fp32_accumulation, std::ldexp(1.0, -8)}};
    case gpu_dtype::fp8:
      return {fnuz_fp8 ? element_format::e4m3fnuz : element_format::e4m3fn,
              element_format::bf16,
              false,
              true,
              {0, std::ldexp(1.0, -13), std::ldexp(1.0, -8)}};
  }
  return {};
}

bool arch_uses_fnuz_fp8(const std::string& arch) { return arch == "gfx942"; }

std::string gpu_gemm_unsupported(gemm_provider provider, gpu_dtype type, const std::string& arch, bool hip) {
  const auto rate = device::flops_per_clock_per_unit(arch, to_string(type));
  if (rate && *rate == 0) return fmt::format("{} has no {} matrix units", arch, to_string(type));
  if (type == gpu_dtype::fp8) {
    if (!rate) return fmt::format("fp8 GEMM on unknown architecture '{}' is not attempted", arch);
    if (provider == gemm_provider::blas) {
      return fmt::format("{} GemmEx has no fp8 inputs (use provider {})", hip ? "rocBLAS" : "cuBLAS",
                         hip ? "hipblaslt" : "cublaslt");
    }
  }
  if (type == gpu_dtype::tf32 && hip && provider == gemm_provider::blas) {
    return "rocBLAS GemmEx has no TF32 (xf32) compute type (use provider hipblaslt)";
  }
  return {};
}

}  // namespace ironbench::blas
