// GEMM on a GPU through a vendor library, one interface for every provider: cuBLASLt and
// cuBLAS on NVIDIA, hipBLASLt and rocBLAS (through hipBLAS) on AMD. The problem and its layout:
// blas/gpu_gemm_problem.hpp; the providers' names and rows: blas/gemm_providers.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "blas/gpu_gemm_problem.hpp"
#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::blas {

/// One provider bound to one problem. prepare() lists the candidate algorithms (the Lt
/// libraries' heuristic returns several; GemmEx has one), choose() picks one, run() enqueues
/// the GEMM on a stream.
class gpu_gemm {
 public:
  virtual ~gpu_gemm() = default;
  /// Sets up descriptors for `problem` and returns how many candidate algorithms there are
  /// (at least 1; throws when the library cannot run the problem at all, or when a pointer of
  /// `problem` is not aligned as the library requires: require_aligned_operands).
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
/// What make_blas_gemm()'s describe() says, known before any problem is prepared:
/// "cublas GemmEx, default algorithm".
[[nodiscard]] std::string blas_gemm_description();

}  // namespace ironbench::blas
