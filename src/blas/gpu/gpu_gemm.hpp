// GEMM on a GPU through a vendor library, one interface for every provider: cuBLASLt and
// cuBLAS on NVIDIA, hipBLASLt and rocBLAS (through hipBLAS) on AMD.
//
// Layout (row-major, as a PyTorch nn.Linear): C[M,N] = A[M,K] * B[N,K]^T, i.e. A is M x K,
// B is stored N x K (each output column's weights contiguous), C is M x N. This "TN" layout
// is the one every fp8 path requires, so every dtype uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "blas/gpu_gemm_types.hpp"
#include "device/gpu/vendor_runtime.hpp"

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

/// One provider bound to one problem. prepare() lists the candidate algorithms (the Lt
/// libraries' heuristic returns several; GemmEx has one), choose() picks one, run() enqueues
/// the GEMM on a stream.
class gpu_gemm {
 public:
  virtual ~gpu_gemm() = default;
  /// Sets up descriptors for `problem` and returns how many candidate algorithms there are
  /// (at least 1; throws when the library cannot run the problem at all).
  virtual std::size_t prepare(const gpu_gemm_problem& problem) = 0;
  virtual void choose(std::size_t candidate) = 0;
  virtual void run(cudaStream_t stream) = 0;
  /// What the chosen candidate is: "cublaslt heuristic #2 of 8 (workspace 4 MiB)".
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// cuBLASLt / hipBLASLt with up to `candidates` heuristic algorithms and a workspace of
/// `workspace_bytes` on the current GPU.
[[nodiscard]] std::unique_ptr<gpu_gemm> make_blaslt_gemm(std::size_t candidates, std::size_t workspace_bytes);
/// cublasGemmEx / hipblasGemmEx (rocBLAS) with the library's default algorithm.
[[nodiscard]] std::unique_ptr<gpu_gemm> make_blas_gemm();

/// The provider's name on the command line: "cublaslt", "cublas", "hipblaslt", "rocblas".
[[nodiscard]] const char* provider_name(gemm_provider provider);

}  // namespace ironbench::blas
