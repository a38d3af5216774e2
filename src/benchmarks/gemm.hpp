// The `gemm` benchmark (matrix units). See docs/metrics.md for its formulas.
#pragma once

#include <memory>

#include "core/benchmark.hpp"

namespace ironbench::benchmarks {

/// OpenBLAS on the CPU (gemm.cpp).
[[nodiscard]] std::unique_ptr<core::benchmark> make_cpu_gemm();
/// cuBLASLt/cuBLAS or hipBLASLt/rocBLAS on a GPU (gpu/gemm_gpu.cpp; GPU builds only).
[[nodiscard]] std::unique_ptr<core::benchmark> make_gpu_gemm();

}  // namespace ironbench::benchmarks
