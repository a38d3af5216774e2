#include "blas/openblas.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <limits>

#include "core/error.hpp"

namespace ironbench::blas {
namespace {

// cblas_sbgemm's signature, with bfloat16 spelled as its storage type.
using sbgemm_function = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                                 const std::uint16_t*, blasint, const std::uint16_t*, blasint, float, float*, blasint);

sbgemm_function find_sbgemm() { return reinterpret_cast<sbgemm_function>(dlsym(RTLD_DEFAULT, "cblas_sbgemm")); }

blasint checked_dimension(std::int64_t value, const char* name) {
  IRONBENCH_CHECK(value > 0 && value <= std::numeric_limits<blasint>::max(),
                  std::string("GEMM dimension ") + name + " outside the range of this OpenBLAS");
  return static_cast<blasint>(value);
}

}  // namespace

std::string openblas_config() { return openblas_get_config(); }
std::string openblas_core_name() { return openblas_get_corename(); }
int openblas_threads() { return openblas_get_num_threads(); }

void openblas_set_threads(int threads) { openblas_set_num_threads(threads); }
bool openblas_has_bf16_gemm() { return find_sbgemm() != nullptr; }

void openblas_gemm(dtype type, std::int64_t m, std::int64_t n, std::int64_t k, const void* a, const void* b, void* c) {
  const auto M = checked_dimension(m, "M");
  const auto N = checked_dimension(n, "N");
  const auto K = checked_dimension(k, "K");
  switch (type) {
    case dtype::fp64:
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, static_cast<const double*>(a), K,
                  static_cast<const double*>(b), N, 0.0, static_cast<double*>(c), N);
      return;
    case dtype::fp32:
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, static_cast<const float*>(a), K,
                  static_cast<const float*>(b), N, 0.0f, static_cast<float*>(c), N);
      return;
    case dtype::bf16: {
      static const auto sbgemm = find_sbgemm();
      IRONBENCH_CHECK(sbgemm != nullptr, "this OpenBLAS has no cblas_sbgemm");
      sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, static_cast<const std::uint16_t*>(a), K,
             static_cast<const std::uint16_t*>(b), N, 0.0f, static_cast<float*>(c), N);
      return;
    }
  }
}

}  // namespace ironbench::blas
