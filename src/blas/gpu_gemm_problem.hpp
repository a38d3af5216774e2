// One GPU matrix multiplication as a BLAS provider receives it, and the alignment its device
// pointers must have. Pure C++ (no GPU runtime), so the checks are tested on every machine.
//
// Layout (row-major, as a PyTorch nn.Linear): C[M,N] = A[M,K] * B[N,K]^T, i.e. A is M x K,
// B is stored N x K (each output column's weights contiguous), C is M x N. This "TN" layout
// is the one every fp8 path requires, so every dtype uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "blas/gpu_gemm_types.hpp"

namespace ironbench::blas {

struct gpu_gemm_problem {
  gpu_dtype type = gpu_dtype::bf16;
  gpu_gemm_types types{};
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;         ///< M x K, row-major, device memory
  const void* b = nullptr;         ///< N x K, row-major, device memory
  void* c = nullptr;               ///< M x N, row-major, device memory
  const float* scale_a = nullptr;  ///< device float, fp8 only: C = scale_a * scale_b * A * B^T
  const float* scale_b = nullptr;
};

/// The alignment, in bytes, of every device pointer handed to a GPU BLAS library. cuBLAS and
/// cuBLASLt document 16 bytes for what their tensor-core kernels read, fp8's scale factors
/// included: an fp8 matmul whose scale pointer is 4 bytes into an allocation finds no algorithm
/// that runs ("not supported"), with no word on the pointer.
inline constexpr std::size_t blas_pointer_alignment = 16;

/// The operands of `problem` whose pointers are not aligned to `blas_pointer_alignment`, named
/// with their addresses ("scale_b (0x7f0000000004)"), comma-separated; empty when every pointer
/// is aligned. The scales are looked at only for a scaled (fp8) problem; null pointers are left
/// to the library.
[[nodiscard]] std::string misaligned_operands(const gpu_gemm_problem& problem);

/// Throws ironbench::error naming the misaligned operands, if any: every provider calls it
/// before it hands `problem` to its library.
void require_aligned_operands(const gpu_gemm_problem& problem);

/// Where the `index`-th of several device values of `element_bytes` bytes each lies (in
/// elements) in one allocation, each on its own `blas_pointer_alignment` boundary: the fp8
/// scales share one allocation this way.
[[nodiscard]] constexpr std::size_t aligned_slot(std::size_t index, std::size_t element_bytes) {
  const std::size_t per_slot = (blas_pointer_alignment + element_bytes - 1) / element_bytes;
  return index * per_slot;
}

}  // namespace ironbench::blas
