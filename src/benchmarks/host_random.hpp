// Reproducible random inputs on the host, filled in parallel.
#pragma once

#include <cstdint>
#include <span>

namespace ironbench::benchmarks {

/// Fills `values` with independent standard normal numbers (mean 0, variance 1), the inputs
/// the GEMM methodology asks for (zeros run faster and hide bugs). The same seed gives the
/// same values whatever the thread count.
void fill_standard_normal(std::span<double> values, std::uint64_t seed);

}  // namespace ironbench::benchmarks
