// bfloat16 storage: the upper 16 bits of an IEEE binary32.
#pragma once

#include <cstdint>
#include <cstring>

namespace ironbench::blas {

using bfloat16_bits = std::uint16_t;

/// Rounds to nearest, ties to even (NaN stays NaN).
[[nodiscard]] inline bfloat16_bits to_bfloat16(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
    return static_cast<bfloat16_bits>((bits >> 16) | 0x0040u);
  }
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<bfloat16_bits>((bits + rounding) >> 16);
}

[[nodiscard]] inline float from_bfloat16(bfloat16_bits value) {
  const std::uint32_t bits = static_cast<std::uint32_t>(value) << 16;
  float result = 0;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

}  // namespace ironbench::blas
