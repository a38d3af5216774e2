// OpenBLAS as the CPU GEMM provider. Matrices are row-major and not transposed:
// C (M x N) = A (M x K) * B (K x N).
#pragma once

#include <cstdint>
#include <string>

#include "blas/dtype.hpp"

namespace ironbench::blas {

/// "0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64" (openblas_get_config()).
[[nodiscard]] std::string openblas_config();

/// The core type OpenBLAS chose at run time ("Zen", "SkylakeX", "Haswell").
[[nodiscard]] std::string openblas_core_name();

/// Threads OpenBLAS uses.
[[nodiscard]] int openblas_threads();

/// Sets the threads OpenBLAS uses from now on (ranks sharing a node split its cores).
void openblas_set_threads(int threads);

/// Whether the loaded OpenBLAS has a bf16 GEMM (cblas_sbgemm, OpenBLAS >= 0.3.10 builds
/// with BUILD_BFLOAT16). Looked up at run time, so one binary works with any OpenBLAS.
[[nodiscard]] bool openblas_has_bf16_gemm();

/// C = A * B in `type`. For bf16, `a` and `b` hold bfloat16_bits and `c` holds float.
/// Throws ironbench::error when the type is not available or a dimension exceeds the
/// library's integer range.
void openblas_gemm(dtype type, std::int64_t m, std::int64_t n, std::int64_t k, const void* a, const void* b, void* c);

}  // namespace ironbench::blas
