#include "benchmarks/stream_kernels.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace ironbench::benchmarks {
namespace {

using index = std::int64_t;  // OpenMP loops want a signed index

template <typename T>
struct expected_values {
  T a, b, c;
};

// What element i must hold after `iterations` runs of `kernel` from the initial arrays.
template <typename T>
expected_values<T> expected_at(stream_kernel kernel, std::size_t i, std::size_t iterations) {
  const T scalar = T(stream_scalar);
  expected_values<T> e{stream_initial_a<T>(i), stream_initial_b<T>(i), stream_initial_c<T>(i)};
  switch (kernel) {
    case stream_kernel::copy: e.c = e.a; break;
    case stream_kernel::mul: e.b = scalar * e.c; break;
    case stream_kernel::add: e.c = e.a + e.b; break;
    case stream_kernel::triad: e.a = e.b + scalar * e.c; break;
    case stream_kernel::dot: break;
    case stream_kernel::nstream: e.a = T(e.a + T(iterations) * (e.b + scalar * e.c)); break;
  }
  return e;
}

bool close(double value, double expected, double relative_tolerance) {
  return std::fabs(value - expected) <= relative_tolerance * std::fabs(expected);
}

}  // namespace

static_assert(schema::stream_kernels.size() == 6 && schema::stream_kernels[5].name == "nstream",
              "stream_kernel indexes schema::stream_kernels");

const char* to_string(stream_kernel kernel) {
  return schema::stream_kernels[static_cast<std::size_t>(kernel)].name.data();
}

std::optional<stream_kernel> stream_kernel_from_string(const std::string& name) {
  for (std::size_t i = 0; i < schema::stream_kernels.size(); ++i) {
    if (schema::stream_kernels[i].name == name) return static_cast<stream_kernel>(i);
  }
  return std::nullopt;
}

schema::stream_kernel_traffic traffic_of(stream_kernel kernel) {
  return schema::stream_kernels[static_cast<std::size_t>(kernel)];
}

template <typename T>
void stream_initialize(T* a, T* b, T* c, std::size_t n) {
#pragma omp parallel for schedule(static)
  for (index i = 0; i < static_cast<index>(n); ++i) {
    a[i] = stream_initial_a<T>(static_cast<std::size_t>(i));
    b[i] = stream_initial_b<T>(static_cast<std::size_t>(i));
    c[i] = stream_initial_c<T>(static_cast<std::size_t>(i));
  }
}

template <typename T>
double stream_run(stream_kernel kernel, T* __restrict a, T* __restrict b, T* __restrict c, std::size_t n) {
  const auto count = static_cast<index>(n);
  const T scalar = T(stream_scalar);
  switch (kernel) {
    case stream_kernel::copy:
#pragma omp parallel for schedule(static)
      for (index i = 0; i < count; ++i) c[i] = a[i];
      return 0.0;
    case stream_kernel::mul:
#pragma omp parallel for schedule(static)
      for (index i = 0; i < count; ++i) b[i] = scalar * c[i];
      return 0.0;
    case stream_kernel::add:
#pragma omp parallel for schedule(static)
      for (index i = 0; i < count; ++i) c[i] = a[i] + b[i];
      return 0.0;
    case stream_kernel::triad:
#pragma omp parallel for schedule(static)
      for (index i = 0; i < count; ++i) a[i] = b[i] + scalar * c[i];
      return 0.0;
    case stream_kernel::dot: {
      double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
      for (index i = 0; i < count; ++i) sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
      return sum;
    }
    case stream_kernel::nstream:
#pragma omp parallel for schedule(static)
      for (index i = 0; i < count; ++i) a[i] += b[i] + scalar * c[i];
      return 0.0;
  }
  return 0.0;
}

template <typename T>
stream_check_result stream_check(stream_kernel kernel, const T* a, const T* b, const T* c, std::size_t n,
                                 std::size_t iterations, double dot_result) {
  constexpr double epsilon = std::numeric_limits<T>::epsilon();
  // Element results: a few roundings (an FMA may fuse triad); nstream accumulates one
  // rounding per iteration.
  const double tolerance =
      (kernel == stream_kernel::nstream ? 4.0 * static_cast<double>(iterations + 1) : 8.0) * epsilon;
  auto first_bad = static_cast<index>(n);
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (index i = 0; i < static_cast<index>(n); ++i) {
    const auto e = expected_at<T>(kernel, static_cast<std::size_t>(i), iterations);
    if (!close(a[i], e.a, tolerance) || !close(b[i], e.b, tolerance) || !close(c[i], e.c, tolerance)) {
      first_bad = std::min(first_bad, i);
    }
  }
  stream_check_result result;
  if (first_bad < static_cast<index>(n)) {
    const auto i = static_cast<std::size_t>(first_bad);
    const auto e = expected_at<T>(kernel, i, iterations);
    result.ok = false;
    result.detail = fmt::format("element {}: a={:.9g} b={:.9g} c={:.9g}, expected a={:.9g} b={:.9g} c={:.9g}", i,
                                double(a[i]), double(b[i]), double(c[i]), double(e.a), double(e.b), double(e.c));
    return result;
  }
  if (kernel == stream_kernel::dot) {
    long double reference = 0;
#pragma omp parallel for schedule(static) reduction(+ : reference)
    for (index i = 0; i < static_cast<index>(n); ++i) {
      reference += static_cast<long double>(a[i]) * static_cast<long double>(b[i]);
    }
    if (!close(dot_result, static_cast<double>(reference), 1e-8)) {
      result.ok = false;
      result.detail = fmt::format("dot = {:.12g}, expected {:.12g}", dot_result, static_cast<double>(reference));
    }
  }
  return result;
}

template void stream_initialize<float>(float*, float*, float*, std::size_t);
template void stream_initialize<double>(double*, double*, double*, std::size_t);
template double stream_run<float>(stream_kernel, float*, float*, float*, std::size_t);
template double stream_run<double>(stream_kernel, double*, double*, double*, std::size_t);
template stream_check_result stream_check<float>(stream_kernel, const float*, const float*, const float*, std::size_t,
                                                 std::size_t, double);
template stream_check_result stream_check<double>(stream_kernel, const double*, const double*, const double*,
                                                  std::size_t, std::size_t, double);

}  // namespace ironbench::benchmarks
