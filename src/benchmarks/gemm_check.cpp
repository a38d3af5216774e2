#include "benchmarks/gemm_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

namespace ironbench::benchmarks {

std::vector<std::pair<std::int64_t, std::int64_t>> gemm_sample_positions(std::int64_t m, std::int64_t n,
                                                                         std::size_t count, std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> positions{{0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::int64_t> row(0, m - 1);
  std::uniform_int_distribution<std::int64_t> column(0, n - 1);
  for (std::size_t i = 0; i < count; ++i) positions.emplace_back(row(generator), column(generator));
  return positions;
}

namespace {

// Sums of one sampled element's products, in extended precision.
struct dot_sums {
  long double reference = 0;  // sum of a*b
  long double absolute = 0;   // sum of |a*b|
  long double squares = 0;    // sum of (a*b)^2
};

using tolerance_rule = std::function<double(const dot_sums&)>;

gemm_check_result check_positions(std::int64_t k, const matrix_reader& a, const matrix_reader& b,
                                  const matrix_reader& c, double scale,
                                  const std::vector<std::pair<std::int64_t, std::int64_t>>& positions,
                                  const tolerance_rule& tolerance_of) {
  gemm_check_result result;
  for (const auto& [i, j] : positions) {
    dot_sums sums;
    for (std::int64_t p = 0; p < k; ++p) {
      const long double product = static_cast<long double>(a(i, p)) * b(p, j) * scale;
      sums.reference += product;
      sums.absolute += std::fabs(product);
      sums.squares += product * product;
    }
    const double value = c(i, j);
    const double error = std::fabs(value - static_cast<double>(sums.reference));
    const double tolerance = tolerance_of(sums) + std::numeric_limits<double>::min();
    ++result.checked;
    const double ratio = std::isnan(error) ? std::numeric_limits<double>::infinity() : error / tolerance;
    result.worst_ratio = std::max(result.worst_ratio, ratio);
    if (!(error <= tolerance) && result.ok) {
      result.ok = false;
      result.detail = fmt::format("C[{},{}] = {:.9g}, reference {:.9g} (error {:.3g} > tolerance {:.3g})", i, j, value,
                                  static_cast<double>(sums.reference), error, tolerance);
    }
  }
  return result;
}

}  // namespace

gemm_check_result check_gemm(std::int64_t k, const matrix_reader& a, const matrix_reader& b, const matrix_reader& c,
                             double unit_roundoff,
                             const std::vector<std::pair<std::int64_t, std::int64_t>>& positions) {
  return check_positions(k, a, b, c, 1.0, positions, [&](const dot_sums& sums) {
    return static_cast<double>(k) * unit_roundoff * static_cast<double>(sums.absolute);
  });
}

gemm_check_result check_gemm_statistical(std::int64_t k, const matrix_reader& a, const matrix_reader& b,
                                         const matrix_reader& c, double scale, const blas::gemm_error_model& model,
                                         const std::vector<std::pair<std::int64_t, std::int64_t>>& positions) {
  return check_positions(k, a, b, c, scale, positions, [&](const dot_sums& sums) {
    const double spread = std::sqrt(static_cast<double>(sums.squares));
    return model.output_roundoff * std::fabs(static_cast<double>(sums.reference)) +
           gemm_statistical_safety *
               (model.input_roundoff + std::sqrt(static_cast<double>(k)) * model.accumulation_roundoff) * spread;
  });
}

}  // namespace ironbench::benchmarks
