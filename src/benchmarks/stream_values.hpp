// Values of the STREAM arrays, shared by the host and the GPU kernels: the scalar, and the
// position-dependent initial values the analytic check starts from.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

namespace ironbench::benchmarks {

/// The scalar of mul, triad and nstream (BabelStream's).
inline constexpr double stream_scalar = 0.4;

/// A pseudo-random digit 0..7 of position i, different for each `salt`.
[[nodiscard]] IRONBENCH_HOST_DEVICE inline unsigned stream_digit(std::size_t i, std::uint64_t salt) {
  return static_cast<unsigned>(((static_cast<std::uint64_t>(i) + salt) * 0x9E3779B97F4A7C15ull) >> 61);
}

/// Initial value of element i of arrays a, b, c (BabelStream's 0.1, 0.2, 0.0 families, with
/// c non-zero so that mul writes something visible). Position-dependent and not periodic, so
/// a kernel that reads or writes the wrong element fails the check, and no two memory pages
/// hold the same bytes (page deduplication cannot fake bandwidth).
template <typename T>
[[nodiscard]] IRONBENCH_HOST_DEVICE T stream_initial_a(std::size_t i) {
  return T(0.1) + T(0.01) * T(stream_digit(i, 1));
}
template <typename T>
[[nodiscard]] IRONBENCH_HOST_DEVICE T stream_initial_b(std::size_t i) {
  return T(0.2) + T(0.01) * T(stream_digit(i, 2));
}
template <typename T>
[[nodiscard]] IRONBENCH_HOST_DEVICE T stream_initial_c(std::size_t i) {
  return T(0.3) + T(0.01) * T(stream_digit(i, 3));
}

}  // namespace ironbench::benchmarks
