#include "blas/float_formats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "blas/bfloat16.hpp"

namespace ironbench::blas {
namespace {

TEST(FloatFormats, KnownEncodings) {
  EXPECT_EQ(encode_small_float(1.0f, fp16_format), 0x3C00u);
  EXPECT_EQ(encode_small_float(-2.0f, fp16_format), 0xC000u);
  EXPECT_EQ(encode_small_float(65504.0f, fp16_format), 0x7BFFu);
  EXPECT_EQ(encode_small_float(1.0f, bf16_format), 0x3F80u);
  EXPECT_EQ(encode_small_float(1.0f, e4m3fn_format), 0x38u);
  EXPECT_EQ(encode_small_float(448.0f, e4m3fn_format), 0x7Eu);
  EXPECT_EQ(encode_small_float(-448.0f, e4m3fn_format), 0xFEu);
  EXPECT_EQ(encode_small_float(std::ldexp(1.0f, -9), e4m3fn_format), 0x01u);  // smallest subnormal
  EXPECT_EQ(encode_small_float(1.0f, e4m3fnuz_format), 0x40u);
  EXPECT_EQ(encode_small_float(240.0f, e4m3fnuz_format), 0x7Fu);
  EXPECT_EQ(encode_small_float(-0.0f, e4m3fnuz_format), 0x00u);  // fnuz has no negative zero
  EXPECT_EQ(encode_small_float(NAN, e4m3fnuz_format), 0x80u);
  EXPECT_EQ(encode_small_float(NAN, e4m3fn_format), 0x7Fu);
}

TEST(FloatFormats, RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(encode_small_float(1.0625f, e4m3fn_format), 0x38u);  // tie between 1 and 1.125: even
  EXPECT_EQ(encode_small_float(1.1875f, e4m3fn_format), 0x3Au);  // tie between 1.125 and 1.25: even
  EXPECT_EQ(encode_small_float(1.05f, e4m3fn_format), 0x38u);
  EXPECT_EQ(encode_small_float(1.08f, e4m3fn_format), 0x39u);
  EXPECT_EQ(encode_small_float(1000.0f, e4m3fn_format), 0x7Eu);
  EXPECT_EQ(encode_small_float(1e9f, fp16_format), 0x7BFFu);
  EXPECT_EQ(encode_small_float(1.0f + std::ldexp(1.0f, -11), fp16_format), 0x3C00u);  // tie: even
  EXPECT_EQ(encode_small_float(1.0f + 3 * std::ldexp(1.0f, -11), fp16_format), 0x3C02u);
  // Rounding up out of the subnormals lands on the smallest normal.
  EXPECT_EQ(encode_small_float(std::ldexp(1.0f, -6) * 0.99f, e4m3fn_format), 0x08u);
}

TEST(FloatFormats, EveryEightBitCodeRoundTrips) {
  for (const auto format : {e4m3fn_format, e4m3fnuz_format}) {
    for (std::uint32_t bits = 0; bits < 256; ++bits) {
      const float value = decode_small_float(bits, format);
      if (std::isnan(value)) continue;
      if (format.fnuz && bits == 0x80) continue;
      const auto again = encode_small_float(value, format);
      EXPECT_EQ(again, bits) << "bits " << bits << " value " << value;
    }
  }
  EXPECT_TRUE(std::isnan(decode_small_float(0x7F, e4m3fn_format)));
  EXPECT_TRUE(std::isnan(decode_small_float(0x80, e4m3fnuz_format)));
  EXPECT_FLOAT_EQ(decode_small_float(0x7E, e4m3fn_format), 448.0f);
  EXPECT_FLOAT_EQ(decode_small_float(0x7F, e4m3fnuz_format), 240.0f);
}

TEST(FloatFormats, EveryFiniteHalfRoundTrips) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    const float value = decode_small_float(bits, fp16_format);
    if (!std::isfinite(value)) continue;
    if (bits == 0x8000) continue;  // -0 encodes as -0: checked separately
    ASSERT_EQ(encode_small_float(value, fp16_format), bits) << value;
  }
  EXPECT_EQ(encode_small_float(-0.0f, fp16_format), 0x8000u);
  EXPECT_TRUE(std::isinf(decode_small_float(0x7C00, fp16_format)));
}

TEST(FloatFormats, Bfloat16AgreesWithTheHostConversion) {
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.0f, 100.0f);
  for (int i = 0; i < 100000; ++i) {
    const float v = normal(generator);
    ASSERT_EQ(encode_small_float(v, bf16_format), to_bfloat16(v)) << v;
    ASSERT_EQ(decode_small_float(to_bfloat16(v), bf16_format), from_bfloat16(to_bfloat16(v)));
  }
}

}  // namespace
}  // namespace ironbench::blas
