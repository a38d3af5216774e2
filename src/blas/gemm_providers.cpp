#include "blas/gemm_providers.hpp"

#include <array>

#include "blas/openblas.hpp"
#include "blas/openblas_kernels.hpp"

#if IRONBENCH_BLAS_WITH_GPU
#include "blas/gpu/gpu_gemm.hpp"
#endif

namespace ironbench::blas {
namespace {

using core::device_kind;

const cpu_gemm_functions openblas_functions = {
    openblas_gemm,
    [] { return "openblas " + openblas_description(); },
    openblas_threads,
    [](dtype type) {
      return type == dtype::bf16 && !openblas_has_bf16_gemm()
                 ? std::string("this OpenBLAS has no bf16 GEMM (cblas_sbgemm)")
                 : std::string();
    },
};

// The GPU runners where this build has the vendor's runtime (CUDA or HIP), else null.
#if IRONBENCH_BLAS_WITH_GPU
std::unique_ptr<gpu_gemm> make_lt_provider(std::size_t candidates, std::size_t workspace_bytes) {
  return make_blaslt_gemm(candidates, workspace_bytes);
}
std::unique_ptr<gpu_gemm> make_gemm_ex_provider(std::size_t, std::size_t) { return make_blas_gemm(); }
#if defined(IRONBENCH_GPU_HIP)
#define IRONBENCH_CUDA_GEMM(make) nullptr
#define IRONBENCH_HIP_GEMM(make) make
#else
#define IRONBENCH_CUDA_GEMM(make) make
#define IRONBENCH_HIP_GEMM(make) nullptr
#endif
#else
#define IRONBENCH_CUDA_GEMM(make) nullptr
#define IRONBENCH_HIP_GEMM(make) nullptr
#endif

// Candidates the Lt providers' search times (the heuristic's 8 best).
constexpr std::size_t lt_search_candidates = 8;

const std::array<gemm_provider_entry, 7> provider_table = {{
    // name, library, method, device, family, in the default sweep, candidates, GPU runner, CPU runner
    {"openblas", "OpenBLAS", "cblas_?gemm", device_kind::cpu, gemm_provider::cpu_blas, true, 1, nullptr,
     &openblas_functions},
    {"cublaslt", "cuBLASLt", "algorithm search", device_kind::cuda, gemm_provider::blaslt, true, lt_search_candidates,
     IRONBENCH_CUDA_GEMM(make_lt_provider), nullptr},
    {"cublas", "cuBLAS", "cublasGemmEx", device_kind::cuda, gemm_provider::blas, true, 1,
     IRONBENCH_CUDA_GEMM(make_gemm_ex_provider), nullptr},
    {"cublaslt-heuristic", "cuBLASLt", "the heuristic's first algorithm, no search", device_kind::cuda,
     gemm_provider::blaslt, false, 1, IRONBENCH_CUDA_GEMM(make_lt_provider), nullptr},
    {"hipblaslt", "hipBLASLt", "algorithm search", device_kind::hip, gemm_provider::blaslt, true, lt_search_candidates,
     IRONBENCH_HIP_GEMM(make_lt_provider), nullptr},
    {"rocblas", "rocBLAS", "hipblasGemmEx", device_kind::hip, gemm_provider::blas, true, 1,
     IRONBENCH_HIP_GEMM(make_gemm_ex_provider), nullptr},
    {"hipblaslt-heuristic", "hipBLASLt", "the heuristic's first algorithm, no search", device_kind::hip,
     gemm_provider::blaslt, false, 1, IRONBENCH_HIP_GEMM(make_lt_provider), nullptr},
}};

#undef IRONBENCH_CUDA_GEMM
#undef IRONBENCH_HIP_GEMM

}  // namespace

std::span<const gemm_provider_entry> gemm_providers() { return provider_table; }

std::vector<const gemm_provider_entry*> gemm_providers_for(core::device_kind kind) {
  std::vector<const gemm_provider_entry*> rows;
  for (const auto& row : provider_table) {
    if (row.device == kind) rows.push_back(&row);
  }
  return rows;
}

const gemm_provider_entry* find_gemm_provider(std::string_view name) {
  for (const auto& row : provider_table) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace ironbench::blas
