#include "benchmarks/tp/tp_model.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "blas/openblas.hpp"

namespace ironbench::benchmarks {
namespace {

constexpr std::uint64_t seed_x = 11, seed_w1 = 12, seed_w2 = 13;

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

double tp_shape::flops() const {
  return 4.0 * static_cast<double>(batch) * static_cast<double>(hidden) * static_cast<double>(ffn());
}

double tp_shape::gather_bytes_per_rank() const { return 4.0 * static_cast<double>(batch * shard()); }

double tp_normal(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = mix(mix(seed) ^ index);
  const double u1 = (static_cast<double>(bits >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = static_cast<double>(mix(bits) >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

float tp_input(std::int64_t row, std::int64_t column, const tp_shape& s) {
  return static_cast<float>(tp_normal(seed_x, static_cast<std::uint64_t>(row * s.hidden + column)));
}

float tp_w1(std::int64_t row, std::int64_t column, const tp_shape& s) {
  return static_cast<float>(tp_normal(seed_w1, static_cast<std::uint64_t>(row * s.ffn() + column)) /
                            std::sqrt(static_cast<double>(s.hidden)));
}

float tp_w2(std::int64_t row, std::int64_t column, const tp_shape& s) {
  return static_cast<float>(tp_normal(seed_w2, static_cast<std::uint64_t>(row * s.hidden + column)) /
                            std::sqrt(static_cast<double>(s.ffn())));
}

tp_cpu_rank::tp_cpu_rank(const tp_shape& shape, int rank) : shape_(shape), rank_(rank) {
  const auto b = shape.batch, h = shape.hidden, f = shape.ffn(), w = shape.shard();
  x_.resize(static_cast<std::size_t>(b * h));
  w1_.resize(static_cast<std::size_t>(h * w));
  w2_.resize(static_cast<std::size_t>(f * h));
  partial_.resize(static_cast<std::size_t>(b * w));
  gathered_.resize(static_cast<std::size_t>(b * f));
  activations_.resize(static_cast<std::size_t>(b * f));
  z_.resize(static_cast<std::size_t>(b * h));
  for (std::int64_t i = 0; i < b; ++i) {
    for (std::int64_t j = 0; j < h; ++j) x_[static_cast<std::size_t>(i * h + j)] = tp_input(i, j, shape);
  }
  for (std::int64_t i = 0; i < h; ++i) {
    for (std::int64_t j = 0; j < w; ++j) {
      w1_[static_cast<std::size_t>(i * w + j)] = tp_w1(i, static_cast<std::int64_t>(rank) * w + j, shape);
    }
  }
  for (std::int64_t i = 0; i < f; ++i) {
    for (std::int64_t j = 0; j < h; ++j) w2_[static_cast<std::size_t>(i * h + j)] = tp_w2(i, j, shape);
  }
}

double tp_cpu_rank::forward(const gather_function& gather) {
  const auto b = shape_.batch, h = shape_.hidden, f = shape_.ffn(), w = shape_.shard();
  blas::openblas_gemm(blas::dtype::fp32, b, w, h, x_.data(), w1_.data(), partial_.data());
  for (auto& v : partial_) v = v > 0.0f ? v : 0.0f;  // relu is element-wise: before the gather
  const auto start = std::chrono::steady_clock::now();
  gather(partial_.data(), gathered_.data(), partial_.size());
  const double gather_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Rank-major blocks [n][B][F/n] to row-major [B][F].
  for (int r = 0; r < shape_.ranks; ++r) {
    const float* block = gathered_.data() + static_cast<std::size_t>(r) * partial_.size();
    for (std::int64_t i = 0; i < b; ++i) {
      std::copy_n(block + i * w, w, activations_.data() + i * f + static_cast<std::int64_t>(r) * w);
    }
  }
  blas::openblas_gemm(blas::dtype::fp32, b, h, f, activations_.data(), w2_.data(), z_.data());
  return gather_s;
}

std::size_t tp_check_rows(const tp_shape& s, const std::vector<float>& z, const std::vector<std::int64_t>& rows,
                          std::string& detail) {
  const auto h = s.hidden, f = s.ffn();
  const double u = std::ldexp(1.0, -23);
  std::size_t wrong = 0;
  for (const auto row : rows) {
    std::vector<long double> a(static_cast<std::size_t>(f)), a_bound(static_cast<std::size_t>(f));
    std::vector<float> x(static_cast<std::size_t>(h));
    for (std::int64_t k = 0; k < h; ++k) x[static_cast<std::size_t>(k)] = tp_input(row, k, s);
    for (std::int64_t j = 0; j < f; ++j) {
      long double sum = 0, magnitude = 0;
      for (std::int64_t k = 0; k < h; ++k) {
        const long double term = static_cast<long double>(x[static_cast<std::size_t>(k)]) * tp_w1(k, j, s);
        sum += term;
        magnitude += std::fabs(term);
      }
      a[static_cast<std::size_t>(j)] = sum > 0 ? sum : 0;
      a_bound[static_cast<std::size_t>(j)] = magnitude;
    }
    for (std::int64_t c = 0; c < h; ++c) {
      long double ref = 0, magnitude = 0;
      for (std::int64_t j = 0; j < f; ++j) {
        const long double w2 = tp_w2(j, c, s);
        ref += a[static_cast<std::size_t>(j)] * w2;
        magnitude += (a[static_cast<std::size_t>(j)] + a_bound[static_cast<std::size_t>(j)]) * std::fabs(w2);
      }
      const double value = z[static_cast<std::size_t>(row * h + c)];
      const double tolerance = static_cast<double>(h + f) * u * static_cast<double>(magnitude) + 1e-30;
      if (!(std::fabs(value - static_cast<double>(ref)) <= tolerance)) {
        if (wrong == 0) {
          detail = fmt::format("Z[{},{}] = {:.7g}, reference {:.7g} (tolerance {:.2g})", row, c, value,
                               static_cast<double>(ref), tolerance);
        }
        ++wrong;
      }
    }
  }
  return wrong;
}

}  // namespace ironbench::benchmarks
