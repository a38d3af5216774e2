// cublasGemmEx (hipblasGemmEx, which runs rocBLAS, on ROCm) with the default algorithm.
#include <fmt/format.h>

#include "blas/gpu/blas_data_type.hpp"
#include "blas/gpu/gpu_gemm.hpp"
#include "device/gpu/gpu_check.hpp"

namespace ironbench::blas {
namespace {

class blas_gemm final : public gpu_gemm {
 public:
  blas_gemm() {
    IRONBENCH_BLAS_CHECK(cublasCreate(&handle_));
#if !defined(IRONBENCH_GPU_HIP)
    // FP32 accumulation throughout, as for the Lt provider: no split-K sums in 16 bits.
    IRONBENCH_BLAS_CHECK(cublasSetMathMode(
        handle_, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
#endif
  }
  blas_gemm(const blas_gemm&) = delete;
  blas_gemm& operator=(const blas_gemm&) = delete;
  ~blas_gemm() override { cublasDestroy(handle_); }

  std::size_t prepare(const gpu_gemm_problem& p) override {
    require_aligned_operands(p);
    if (p.types.scaled) throw error(fmt::format("{} GemmEx has no scaled fp8 inputs", IRONBENCH_BLAS_NAME));
    problem_ = p;
    in_ = blas_data_type(p.types.input);
    out_ = blas_data_type(p.types.output);
    compute_ = blas_compute_type(p.types);
    return 1;
  }

  void choose(std::size_t) override {}

  void run(cudaStream_t stream) override {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    IRONBENCH_BLAS_CHECK(cublasSetStream(handle_, stream));
    // Column-major view, as in the Lt provider: C^T (N x M) = B_stored^T-op * A_stored.
    const auto m = static_cast<int>(problem_.m);
    const auto n = static_cast<int>(problem_.n);
    const auto k = static_cast<int>(problem_.k);
    IRONBENCH_BLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, problem_.b, in_, k,
                                      problem_.a, in_, k, &beta, problem_.c, out_, n, compute_, CUBLAS_GEMM_DEFAULT));
  }

  std::string describe() const override { return blas_gemm_description(); }

 private:
  cublasHandle_t handle_{};
  gpu_gemm_problem problem_;
  cudaDataType_t in_{}, out_{};
  cublasComputeType_t compute_{};
};

}  // namespace

std::unique_ptr<gpu_gemm> make_blas_gemm() { return std::make_unique<blas_gemm>(); }

std::string blas_gemm_description() { return fmt::format("{} GemmEx, default algorithm", IRONBENCH_BLAS_NAME); }

}  // namespace ironbench::blas
