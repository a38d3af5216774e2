// What the GPU gemm benchmark sweeps by default, what each case needs, and which cases a
// device cannot run. Pure C++ (no GPU runtime) so that planning is tested everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blas/gemm_providers.hpp"
#include "blas/gpu_gemm_types.hpp"
#include "core/axis.hpp"
#include "core/device_info.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::benchmarks {

/// dtypes of `ironbench run gemm` on a GPU unless --axis dtype=... says otherwise (fp32
/// without TF32 runs on the vector units at a few percent of the matrix peak: ask for it).
inline const std::vector<std::string> default_gpu_gemm_dtypes = {"bf16", "fp16", "fp8", "tf32"};

/// Workspace the Lt providers may use (32 MiB, what Hopper-class GPUs want).
inline constexpr std::size_t blaslt_workspace_bytes = std::size_t{32} << 20;
/// Bytes written before every timed repetition to flush the GPU's caches (at least this
/// much, and 4 x the L2), as triton's do_bench does with its 256 MB buffer; MI300X's
/// memory-side Infinity Cache is 256 MiB, hence 512 MiB.
inline constexpr std::uint64_t min_cache_flush_bytes = std::uint64_t{512} << 20;
/// Timed repetitions a case aims for (as do_bench's repeat), within the case's --max-time.
inline constexpr std::size_t gpu_gemm_min_reps = 200;

/// The fewest timed repetitions of a case whose one repetition (the flush before it not counted) takes
/// `repetition_s`: gpu_gemm_min_reps where they fit in `max_time_s`, fewer where they do not,
/// never fewer than the user's `min_reps` (so --max-time is honoured for large shapes).
[[nodiscard]] std::size_t gpu_gemm_min_reps_within(std::size_t min_reps, double max_time_s, double repetition_s);

/// Axes on a GPU: provider (the device kind's rows of blas/gemm_providers.hpp: cublaslt,cublas
/// or hipblaslt,rocblas by default, the others accepted), dtype, and M, N, K zipped over the
/// seed's seven Llama-70B training shapes (which include the 4K, 8K and 16K squares).
[[nodiscard]] std::vector<core::axis> gpu_gemm_axes(const core::device_info& device);

/// Whether a case of the default product is in the default suite's first look: every shape
/// in bf16 and fp8 through the Lt library (cuBLASLt, hipBLASLt), and the 8192^3 square in
/// every other dtype and library (14 + 6 cases of the 56; the rest is one --axis away).
[[nodiscard]] bool gpu_gemm_in_first_look(const core::parameter_set& params, const core::device_info& device);

/// What the first look runs, for `ironbench list`.
[[nodiscard]] std::string gpu_gemm_first_look_summary(const core::device_info& device);

/// The GPU provider named by a case's "provider" parameter (usage_error for any other name).
[[nodiscard]] const blas::gemm_provider_entry& gpu_gemm_provider_of(const core::parameter_set& params);

/// Empty when the case can run on `device`; otherwise the skip reason.
[[nodiscard]] std::string gpu_gemm_case_unsupported(const core::parameter_set& params, const core::device_info& device);

/// Bytes of cache flush buffer for `device`.
[[nodiscard]] std::uint64_t gpu_cache_flush_bytes(const core::device_info& device);

/// Device memory one case needs: A, B, C, the flush buffer and the Lt workspace.
[[nodiscard]] std::uint64_t gpu_gemm_memory_required(const core::parameter_set& params,
                                                     const core::device_info& device);

/// Throws usage_error for a dimension that is not positive or too large for the libraries.
void check_gpu_gemm_params(const core::parameter_set& params);

}  // namespace ironbench::benchmarks
