// Verification of a GEMM result on sampled elements against a reference computed on the host
// in extended precision. Shared by every GEMM provider (CPU and GPU).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "blas/gpu_gemm_types.hpp"

namespace ironbench::benchmarks {

/// Element (row, column) of a matrix, as a double.
using matrix_reader = std::function<double(std::int64_t row, std::int64_t column)>;

struct gemm_check_result {
  bool ok = true;
  std::size_t checked = 0;
  double worst_ratio = 0;  ///< largest |error| / tolerance seen (ok means <= 1)
  std::string detail;      ///< the first failing element, when not ok
};

/// Positions to check: the four corners and `count` random elements (fixed seed).
[[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>> gemm_sample_positions(std::int64_t m, std::int64_t n,
                                                                                       std::size_t count,
                                                                                       std::uint64_t seed);

/// Checks C = A * B (A is M x K, B is K x N) at `positions`. An element passes when
/// |c - ref| <= K * u * sum_k |a_ik * b_kj| + tiny, the standard bound on the rounding error
/// of a dot product of length K accumulated with unit roundoff `u`.
[[nodiscard]] gemm_check_result check_gemm(std::int64_t k, const matrix_reader& a, const matrix_reader& b,
                                           const matrix_reader& c, double unit_roundoff,
                                           const std::vector<std::pair<std::int64_t, std::int64_t>>& positions);

/// Safety factor of the statistical bound (see blas::gemm_error_model).
inline constexpr double gemm_statistical_safety = 8.0;

/// Checks C = scale * A * B at `positions` with the statistical bound of `model` (GPU
/// matrix units, whose accumulation order and precision vary by algorithm).
[[nodiscard]] gemm_check_result check_gemm_statistical(
    std::int64_t k, const matrix_reader& a, const matrix_reader& b, const matrix_reader& c, double scale,
    const blas::gemm_error_model& model, const std::vector<std::pair<std::int64_t, std::int64_t>>& positions);

}  // namespace ironbench::benchmarks
