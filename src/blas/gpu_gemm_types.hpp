// Element types of GPU matrix multiplications: what each command-line dtype stores, computes
// and writes, how far a correct result may be from the exact one, and which provider and
// architecture can run it. Pure C++ (no GPU runtime), tested everywhere.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ironbench::blas {

/// fp32: FP32 inputs, FP32 math without TF32. tf32: FP32 inputs rounded to TF32 inside the
/// matrix units. fp16, bf16: 16-bit inputs and output (as torch.matmul), FP32 accumulation.
/// fp8: e4m3 inputs with per-tensor scales, bf16 output (as torch._scaled_mm), FP32 accumulation.
enum class gpu_dtype { fp32, tf32, fp16, bf16, fp8 };

[[nodiscard]] const char* to_string(gpu_dtype type);
[[nodiscard]] std::optional<gpu_dtype> gpu_dtype_from_string(const std::string& name);
/// Every GPU dtype, in command-line order.
[[nodiscard]] const std::vector<gpu_dtype>& all_gpu_dtypes();

/// How elements are stored in memory.
enum class element_format { fp32, fp16, bf16, e4m3fn, e4m3fnuz };

[[nodiscard]] std::size_t element_bytes(element_format format);
[[nodiscard]] const char* to_string(element_format format);

/// How far a GEMM result may be from the exact product of its stored inputs. For normal random
/// inputs of length-K dot products, with S2 = sum_k (a_ik b_kj)^2 (the exact product scaled
/// by the fp8 scales), an element passes when
///   |c - ref| <= output_roundoff * |ref| + 8 * (input_roundoff + sqrt(K) * accumulation_roundoff) * sqrt(S2)
/// a statistical bound (rounding errors of a long sum grow like sqrt(K), not K) with a safety
/// factor of 8: tight enough that a wrong element (off by about sqrt(S2)) always fails.
struct gemm_error_model {
  double input_roundoff = 0;         ///< relative error of each product from inputs rounded inside (tf32)
  double accumulation_roundoff = 0;  ///< relative error of each addition of the accumulation
  double output_roundoff = 0;        ///< relative error of rounding the result to the output type
};

/// Everything a provider needs to know about one dtype.
struct gpu_gemm_types {
  element_format input;
  element_format output;
  bool tf32_math = false;  ///< FP32 inputs, TF32 matrix units
  bool scaled = false;     ///< per-tensor input scales (fp8)
  gemm_error_model error;
};

/// Storage, math and error model of `type`; `fnuz_fp8` picks AMD CDNA3's fp8 encoding.
[[nodiscard]] gpu_gemm_types gpu_gemm_types_for(gpu_dtype type, bool fnuz_fp8);

/// Whether the architecture stores fp8 in the "fnuz" encoding (gfx942: MI300X, MI325X).
[[nodiscard]] bool arch_uses_fnuz_fp8(const std::string& arch);

/// Kinds of GEMM library: the Lt ("light") library with an algorithm search (cuBLASLt,
/// hipBLASLt), the classic BLAS GemmEx (cuBLAS, rocBLAS through hipBLAS) and a CPU BLAS
/// (OpenBLAS). Each provider of blas/gemm_providers.hpp is of one kind.
enum class gemm_provider { blaslt, blas, cpu_blas };

/// Empty when `provider` can run `type` on `arch` ("sm_90", "gfx942"); otherwise why not.
[[nodiscard]] std::string gpu_gemm_unsupported(gemm_provider provider, gpu_dtype type, const std::string& arch,
                                               bool hip);

}  // namespace ironbench::blas
