// cuBLASLt (hipBLASLt on ROCm): heuristic candidates, one chosen by the caller's timing.
#include <fmt/format.h>

#include <vector>

#include "blas/gpu/blas_data_type.hpp"
#include "blas/gpu/gpu_gemm.hpp"
#include "core/units.hpp"
#include "device/gpu/gpu_check.hpp"
#include "device/gpu/gpu_memory.hpp"

namespace ironbench::blas {
namespace {

class blaslt_gemm final : public gpu_gemm {
 public:
  blaslt_gemm(std::size_t candidates, std::size_t workspace_bytes)
      : requested_(static_cast<int>(candidates)), workspace_(workspace_bytes) {
    IRONBENCH_BLAS_CHECK(cublasLtCreate(&handle_));
  }
  blaslt_gemm(const blaslt_gemm&) = delete;
  blaslt_gemm& operator=(const blaslt_gemm&) = delete;
  ~blaslt_gemm() override {
    release_descriptors();
    cublasLtDestroy(handle_);
  }

  std::size_t prepare(const gpu_gemm_problem& p) override {
    require_aligned_operands(p);
    release_descriptors();
    problem_ = p;
    const auto in = blas_data_type(p.types.input);
    const auto out = blas_data_type(p.types.output);
    IRONBENCH_BLAS_CHECK(cublasLtMatmulDescCreate(&desc_, blas_compute_type(p.types), CUDA_R_32F));
    // Column-major view of the row-major problem: C^T (N x M) = op(B_stored) * A_stored, with
    // B_stored (K x N column-major) transposed and A_stored (K x M column-major) as is.
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t keep = CUBLAS_OP_N;
    IRONBENCH_BLAS_CHECK(
        cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
    IRONBENCH_BLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
    if (p.types.scaled) {
      const void* lt_a_scale = p.scale_b;  // the library's "A" is our B
      const void* lt_b_scale = p.scale_a;
      IRONBENCH_BLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &lt_a_scale, sizeof lt_a_scale));
      IRONBENCH_BLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &lt_b_scale, sizeof lt_b_scale));
    }
    const auto m = static_cast<std::uint64_t>(p.m);
    const auto n = static_cast<std::uint64_t>(p.n);
    const auto k = static_cast<std::uint64_t>(p.k);
    IRONBENCH_BLAS_CHECK(cublasLtMatrixLayoutCreate(&a_layout_, in, k, n, static_cast<std::int64_t>(k)));
    IRONBENCH_BLAS_CHECK(cublasLtMatrixLayoutCreate(&b_layout_, in, k, m, static_cast<std::int64_t>(k)));
    IRONBENCH_BLAS_CHECK(cublasLtMatrixLayoutCreate(&c_layout_, out, n, m, static_cast<std::int64_t>(n)));

    cublasLtMatmulPreference_t preference{};
    IRONBENCH_BLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    const std::uint64_t workspace_bytes = workspace_.bytes();
    auto set = cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &workspace_bytes, sizeof workspace_bytes);
#if !defined(IRONBENCH_GPU_HIP)
    // FP32 accumulation throughout: split-K partial sums may not be added in the output type
    // (16-bit), which the verification's error bound does not allow for.
    const std::uint32_t fp32_reductions = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    if (set == CUBLAS_STATUS_SUCCESS) {
      set = cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                 &fp32_reductions, sizeof fp32_reductions);
    }
#endif
    results_.assign(static_cast<std::size_t>(requested_), cublasLtMatmulHeuristicResult_t{});
    int returned = 0;
    const auto found = cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_layout_, b_layout_, c_layout_, c_layout_,
                                                      preference, requested_, results_.data(), &returned);
    cublasLtMatmulPreferenceDestroy(preference);
    IRONBENCH_BLAS_CHECK(set);
    if (found != CUBLAS_STATUS_NOT_SUPPORTED) IRONBENCH_BLAS_CHECK(found);
    if (found == CUBLAS_STATUS_NOT_SUPPORTED || returned <= 0) {
      throw error(
          fmt::format("{} has no algorithm for {} {}x{}x{}", IRONBENCH_BLASLT_NAME, to_string(p.type), p.m, p.n, p.k));
    }
    results_.resize(static_cast<std::size_t>(returned));
    chosen_ = 0;
    return results_.size();
  }

  void choose(std::size_t candidate) override { chosen_ = candidate; }

  void run(cudaStream_t stream) override {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const auto& algo = results_.at(chosen_);
    IRONBENCH_BLAS_CHECK(cublasLtMatmul(handle_, desc_, &alpha, problem_.b, a_layout_, problem_.a, b_layout_, &beta,
                                        problem_.c, c_layout_, problem_.c, c_layout_, &algo.algo, workspace_.data(),
                                        workspace_.bytes(), stream));
  }

  std::string describe() const override {
    return fmt::format("{} heuristic #{} of {} (workspace {} of {})", IRONBENCH_BLASLT_NAME, chosen_ + 1,
                       results_.size(), format_bytes(static_cast<double>(results_.at(chosen_).workspaceSize)),
                       format_bytes(static_cast<double>(workspace_.bytes())));
  }

 private:
  void release_descriptors() {
    if (c_layout_ != nullptr) cublasLtMatrixLayoutDestroy(c_layout_);
    if (b_layout_ != nullptr) cublasLtMatrixLayoutDestroy(b_layout_);
    if (a_layout_ != nullptr) cublasLtMatrixLayoutDestroy(a_layout_);
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
    c_layout_ = b_layout_ = a_layout_ = nullptr;
    desc_ = nullptr;
  }

  int requested_;
  device::device_buffer<std::byte> workspace_;
  cublasLtHandle_t handle_{};
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t a_layout_{}, b_layout_{}, c_layout_{};
  std::vector<cublasLtMatmulHeuristicResult_t> results_;
  std::size_t chosen_ = 0;
  gpu_gemm_problem problem_;
};

}  // namespace

std::unique_ptr<gpu_gemm> make_blaslt_gemm(std::size_t candidates, std::size_t workspace_bytes) {
  return std::make_unique<blaslt_gemm>(candidates, workspace_bytes);
}

}  // namespace ironbench::blas
