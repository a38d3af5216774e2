// Narrow floating-point formats of GPU matrix units, encoded and decoded bit-exactly the same
// way on the host and in GPU kernels: IEEE binary16 (fp16), bfloat16, and the 8-bit e4m3
// formats (OCP "fn": bias 7, max 448, NaN 0x7f/0xff; AMD CDNA3 "fnuz": bias 8, max 240, NaN 0x80).
// Encoding rounds to nearest, ties to even, and saturates at the largest finite value.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace ironbench::blas {

/// A small binary floating-point format: sign, exponent_bits, mantissa_bits.
struct small_float_format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  float max_finite;
  bool fnuz;  ///< no negative zero, and 1 followed by zeros is NaN
};

inline constexpr small_float_format fp16_format{5, 10, 15, 65504.0f, false};
inline constexpr small_float_format bf16_format{8, 7, 127, 3.3895313892515355e38f, false};
inline constexpr small_float_format e4m3fn_format{4, 3, 7, 448.0f, false};
inline constexpr small_float_format e4m3fnuz_format{4, 3, 8, 240.0f, true};

/// Bits of `value` in `format` (low 1 + exponent_bits + mantissa_bits bits used).
IRONBENCH_HOST_DEVICE inline std::uint32_t encode_small_float(float value, small_float_format format) {
  const int total_bits = 1 + format.exponent_bits + format.mantissa_bits;
  const std::uint32_t sign_bit = 1u << (total_bits - 1);
  if (value != value) {  // NaN
    return format.fnuz ? sign_bit : (sign_bit - 1u);
  }
  std::uint32_t float_bits = 0;
  memcpy(&float_bits, &value, sizeof float_bits);
  const bool negative = (float_bits >> 31) != 0;
  float magnitude = negative ? -value : value;
  std::uint32_t bits = 0;
  if (magnitude >= format.max_finite) {
    magnitude = format.max_finite;
  }
  if (magnitude > 0.0f) {
    int exponent = 0;
    (void)frexpf(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
    int unbiased = exponent - 1;
    const int min_normal = 1 - format.bias;
    const int one = 1 << format.mantissa_bits;
    if (unbiased < min_normal) {
      // Subnormal: a multiple of 2^(min_normal - mantissa_bits). Rounding up to `one` lands
      // exactly on the smallest normal's encoding.
      bits = static_cast<std::uint32_t>(rintf(ldexpf(magnitude, format.mantissa_bits - min_normal)));
    } else {
      auto scaled = static_cast<int>(rintf(ldexpf(magnitude, format.mantissa_bits - unbiased)));
      if (scaled == 2 * one) {
        scaled = one;
        ++unbiased;
      }
      bits = (static_cast<std::uint32_t>(unbiased + format.bias) << format.mantissa_bits) |
             static_cast<std::uint32_t>(scaled - one);
    }
  }
  if (negative && !(format.fnuz && bits == 0)) bits |= sign_bit;
  return bits;
}

/// The value of `bits` in `format`, as a float (exact: every such value is a float).
IRONBENCH_HOST_DEVICE inline float decode_small_float(std::uint32_t bits, small_float_format format) {
  const int total_bits = 1 + format.exponent_bits + format.mantissa_bits;
  const std::uint32_t sign_bit = 1u << (total_bits - 1);
  const std::uint32_t exponent_mask = (1u << format.exponent_bits) - 1u;
  const std::uint32_t mantissa_mask = (1u << format.mantissa_bits) - 1u;
  if (format.fnuz && bits == sign_bit) return NAN;
  const std::uint32_t exponent_field = (bits >> format.mantissa_bits) & exponent_mask;
  const std::uint32_t mantissa = bits & mantissa_mask;
  const bool negative = (bits & sign_bit) != 0;
  float magnitude = 0.0f;
  if (exponent_field == 0) {
    magnitude = ldexpf(static_cast<float>(mantissa), 1 - format.bias - format.mantissa_bits);
  } else if (!format.fnuz && exponent_field == exponent_mask && format.exponent_bits > 4) {
    magnitude = mantissa == 0 ? INFINITY : NAN;  // IEEE-style formats (fp16, bf16)
  } else if (!format.fnuz && exponent_field == exponent_mask && mantissa == mantissa_mask) {
    return NAN;  // e4m3fn: only all-ones is NaN
  } else {
    magnitude = ldexpf(static_cast<float>(mantissa | (1u << format.mantissa_bits)),
                       static_cast<int>(exponent_field) - format.bias - format.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace ironbench::blas
