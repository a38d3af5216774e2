// Byte counts that cannot overflow: products and sums of sizes saturate at the largest 64-bit
// value, which is more memory than any device has, so a size whose bytes 64 bits cannot count
// is refused before anything runs instead of wrapping to a small number.
#pragma once

#include <cstdint>
#include <limits>

namespace ironbench::core {

inline constexpr std::uint64_t uncountable_bytes = std::numeric_limits<std::uint64_t>::max();

/// a x b, or uncountable_bytes when the product does not fit.
[[nodiscard]] constexpr std::uint64_t bytes_times(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? uncountable_bytes : product;
}

/// a + b, or uncountable_bytes when the sum does not fit.
[[nodiscard]] constexpr std::uint64_t bytes_plus(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? uncountable_bytes : sum;
}

}  // namespace ironbench::core
