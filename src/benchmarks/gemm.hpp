// The `gemm` benchmark (matrix units). See docs/metrics.md for its formulas.
#pragma once

#include <memory>

#include "core/benchmark.hpp"

namespace ironbench::benchmarks {
[[nodiscard]] std::unique_ptr<core::benchmark> make_gemm_benchmark();
}  // namespace ironbench::benchmarks
