#include "benchmarks/gemm_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>

namespace ironbench::benchmarks {

std::vector<std::pair<std::int64_t, std::int64_t>> gemm_sample_positions(std::int64_t m, std::int64_t n,
                                                                         std::size_t count,
                                                                         std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> positions{
      {0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::int64_t> row(0, m - 1);
  std::uniform_int_distribution<std::int64_t> column(0, n - 1);
  for (std::size_t i = 0; i < count; ++i) positions.emplace_back(row(generator), column(generator));
  return positions;
}

gemm_check_result check_gemm(std::int64_t k, const matrix_reader& a, const matrix_reader& b,
                             const matrix_reader& c, double unit_roundoff,
                             const std::vector<std::pair<std::int64_t, std::int64_t>>& positions) {
  gemm_check_result result;
  for (const auto& [i, j] : positions) {
    long double reference = 0;
    long double magnitude = 0;
    for (std::int64_t p = 0; p < k; ++p) {
      const long double product = static_cast<long double>(a(i, p)) * b(p, j);
      reference += product;
      magnitude += std::fabs(product);
    }
    const double value = c(i, j);
    const double error = std::fabs(value - static_cast<double>(reference));
    const double tolerance = static_cast<double>(k) * unit_roundoff * static_cast<double>(magnitude) +
                             std::numeric_limits<double>::min();
    ++result.checked;
    const double ratio = std::isnan(error) ? std::numeric_limits<double>::infinity() : error / tolerance;
    result.worst_ratio = std::max(result.worst_ratio, ratio);
    if (!(error <= tolerance) && result.ok) {
      result.ok = false;
      result.detail = fmt::format("C[{},{}] = {:.9g}, reference {:.9g} (error {:.3g} > tolerance {:.3g})",
                                  i, j, value, static_cast<double>(reference), error, tolerance);
    }
  }
  return result;
}

}  // namespace ironbench::benchmarks
