#include "benchmarks/gemm_check.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <vector>

#include "benchmarks/host_random.hpp"
#include "blas/bfloat16.hpp"
#include "blas/dtype.hpp"
#include "blas/float_formats.hpp"
#include "blas/openblas.hpp"

namespace ironbench::benchmarks {
namespace {

// A real OpenBLAS product to check: C = A * B, row-major.
struct product {
  std::int64_t m, n, k;
  std::vector<float> a, b, c;
  product(std::int64_t m_, std::int64_t n_, std::int64_t k_) : m(m_), n(n_), k(k_) {
    std::vector<double> a64(static_cast<std::size_t>(m * k)), b64(static_cast<std::size_t>(k * n));
    fill_standard_normal(a64, 11);
    fill_standard_normal(b64, 12);
    a.assign(a64.begin(), a64.end());
    b.assign(b64.begin(), b64.end());
    c.assign(static_cast<std::size_t>(m * n), 0.0f);
    blas::openblas_gemm(blas::dtype::fp32, m, n, k, a.data(), b.data(), c.data());
  }
  gemm_check_result check(const std::vector<std::pair<std::int64_t, std::int64_t>>& positions) const {
    return check_gemm(
        k, [&](std::int64_t i, std::int64_t p) { return double(a[i * k + p]); },
        [&](std::int64_t p, std::int64_t j) { return double(b[p * n + j]); },
        [&](std::int64_t i, std::int64_t j) { return double(c[i * n + j]); },
        blas::accumulation_roundoff(blas::dtype::fp32), positions);
  }
};

TEST(GemmCheck, AcceptsACorrectResult) {
  const product p(96, 80, 300);
  const auto result = p.check(gemm_sample_positions(p.m, p.n, 200, 1));
  EXPECT_TRUE(result.ok) << result.detail;
  EXPECT_EQ(result.checked, 204u);
  EXPECT_LT(result.worst_ratio, 1.0);
}

TEST(GemmCheck, CatchesACorruptedElement) {
  product p(96, 80, 300);
  const auto positions = gemm_sample_positions(p.m, p.n, 64, 7);
  const auto [i, j] = positions[10];
  p.c[static_cast<std::size_t>(i * p.n + j)] += 0.5f;  // a small error in one element
  const auto result = p.check(positions);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.detail.find(fmt::format("C[{},{}]", i, j)), std::string::npos) << result.detail;
}

TEST(GemmCheck, CatchesATransposedOperand) {
  product p(64, 64, 64);
  std::vector<float> bt(p.b.size());
  for (std::int64_t r = 0; r < 64; ++r) {
    for (std::int64_t s = 0; s < 64; ++s) bt[r * 64 + s] = p.b[s * 64 + r];
  }
  blas::openblas_gemm(blas::dtype::fp32, 64, 64, 64, p.a.data(), bt.data(), p.c.data());
  EXPECT_FALSE(p.check(gemm_sample_positions(64, 64, 16, 3)).ok);
}

TEST(GemmCheck, CatchesNaN) {
  product p(16, 16, 16);
  p.c[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(p.check({{0, 0}}).ok);
}

TEST(GemmCheck, Fp64ToleranceIsTight) {
  // An fp64 result stored in fp32 loses ~1e-8 relative accuracy: far above the fp64 bound.
  const product p(32, 32, 256);
  const auto result = check_gemm(
      p.k, [&](std::int64_t i, std::int64_t q) { return double(p.a[i * p.k + q]); },
      [&](std::int64_t q, std::int64_t j) { return double(p.b[q * p.n + j]); },
      [&](std::int64_t i, std::int64_t j) { return double(p.c[i * p.n + j]); },
      blas::accumulation_roundoff(blas::dtype::fp64), gemm_sample_positions(32, 32, 32, 5));
  EXPECT_FALSE(result.ok);
}

TEST(GemmCheck, Bf16ProductOfTheLoadedOpenBlasVerifies) {
  if (!blas::openblas_has_bf16_gemm()) {
    GTEST_SKIP() << "the loaded OpenBLAS has no cblas_sbgemm (built without BUILD_BFLOAT16)";
  }
  const std::int64_t m = 64, n = 48, k = 512;
  std::vector<double> a64(static_cast<std::size_t>(m * k)), b64(static_cast<std::size_t>(k * n));
  fill_standard_normal(a64, 21);
  fill_standard_normal(b64, 22);
  std::vector<blas::bfloat16_bits> a, b;
  for (double v : a64) a.push_back(blas::to_bfloat16(static_cast<float>(v)));
  for (double v : b64) b.push_back(blas::to_bfloat16(static_cast<float>(v)));
  std::vector<float> c(static_cast<std::size_t>(m * n));
  blas::openblas_gemm(blas::dtype::bf16, m, n, k, a.data(), b.data(), c.data());
  auto reader = [](const std::vector<blas::bfloat16_bits>& x, std::int64_t columns) {
    return [&x, columns](std::int64_t i, std::int64_t j) { return double(blas::from_bfloat16(x[i * columns + j])); };
  };
  const auto c_at = [&](std::int64_t i, std::int64_t j) { return double(c[i * n + j]); };
  const auto positions = gemm_sample_positions(m, n, 64, 4);
  const auto result =
      check_gemm(k, reader(a, k), reader(b, n), c_at, blas::accumulation_roundoff(blas::dtype::bf16), positions);
  EXPECT_TRUE(result.ok) << result.detail;
  c[static_cast<std::size_t>(positions[5].first * n + positions[5].second)] += 0.25f;
  EXPECT_FALSE(
      check_gemm(k, reader(a, k), reader(b, n), c_at, blas::accumulation_roundoff(blas::dtype::bf16), positions).ok);
}

TEST(GemmSamples, CornersFirstAndInRange) {
  const auto positions = gemm_sample_positions(5, 7, 100, 9);
  ASSERT_EQ(positions.size(), 104u);
  EXPECT_EQ(positions[3], (std::pair<std::int64_t, std::int64_t>{4, 6}));
  for (const auto& [i, j] : positions) {
    EXPECT_TRUE(i >= 0 && i < 5 && j >= 0 && j < 7);
  }
}

TEST(Bfloat16, RoundsToNearestEven) {
  EXPECT_EQ(blas::to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(blas::from_bfloat16(0x3f80), 1.0f);
  EXPECT_EQ(blas::from_bfloat16(blas::to_bfloat16(1.00390625f)), 1.0f);       // tie -> even (down)
  EXPECT_EQ(blas::from_bfloat16(blas::to_bfloat16(1.01171875f)), 1.015625f);  // tie -> even (up)
  EXPECT_EQ(blas::from_bfloat16(blas::to_bfloat16(-2.5f)), -2.5f);
  EXPECT_TRUE(std::isnan(blas::from_bfloat16(blas::to_bfloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(HostRandom, StandardNormalAndReproducible) {
  std::vector<double> x(1 << 18), y(1 << 18);
  fill_standard_normal(x, 5);
  fill_standard_normal(y, 5);
  EXPECT_EQ(x, y);
  double sum = 0, squares = 0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  const double n = static_cast<double>(x.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(squares / n, 1.0, 0.01);
}

}  // namespace
}  // namespace ironbench::benchmarks

namespace ironbench::benchmarks {
namespace {

// A K-long product of normal inputs with an exact reference; the statistical bound passes a
// correctly rounded result and fails an element that is off by about one spread.
TEST(GemmCheckStatistical, PassesRoundedResultsAndCatchesWrongElements) {
  const std::int64_t m = 4, n = 4, k = 4096;
  std::mt19937_64 generator(11);
  std::normal_distribution<double> normal;
  std::vector<double> a(m * k), b(k * n), c(m * n);
  for (auto& v : a) v = static_cast<float>(normal(generator));
  for (auto& v : b) v = static_cast<float>(normal(generator));
  const double scale = 0.125;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      long double sum = 0;
      for (std::int64_t p = 0; p < k; ++p) sum += static_cast<long double>(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = blas::decode_small_float(
          blas::encode_small_float(static_cast<float>(sum * scale), blas::bf16_format), blas::bf16_format);
    }
  }
  const auto reader = [](const std::vector<double>& x, std::int64_t columns) {
    return [&x, columns](std::int64_t r, std::int64_t col) { return x[r * columns + col]; };
  };
  const auto model = blas::gpu_gemm_types_for(blas::gpu_dtype::bf16, false).error;
  const auto positions = gemm_sample_positions(m, n, 8, 1);
  auto ok = check_gemm_statistical(k, reader(a, k), reader(b, n), reader(c, n), scale, model, positions);
  EXPECT_TRUE(ok.ok) << ok.detail;
  EXPECT_GT(ok.worst_ratio, 0.0);
  // Without the scale the same numbers are 8x off.
  EXPECT_FALSE(check_gemm_statistical(k, reader(a, k), reader(b, n), reader(c, n), 1.0, model, positions).ok);
  // One element off by one spread (sqrt(K) * scale) fails.
  c[0] += std::sqrt(static_cast<double>(k)) * scale;
  const auto wrong = check_gemm_statistical(k, reader(a, k), reader(b, n), reader(c, n), scale, model, positions);
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.detail.find("C[0,0]"), std::string::npos);
  // NaN (an element the library never wrote) fails.
  c[0] = std::nan("");
  EXPECT_FALSE(check_gemm_statistical(k, reader(a, k), reader(b, n), reader(c, n), scale, model, positions).ok);
}

}  // namespace
}  // namespace ironbench::benchmarks
