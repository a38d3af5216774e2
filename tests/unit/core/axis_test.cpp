#include "core/axis.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

std::vector<std::int64_t> integers(const std::vector<axis_value>& values) {
  std::vector<std::int64_t> out;
  for (const auto& v : values) out.push_back(std::get<std::int64_t>(v));
  return out;
}

std::vector<std::int64_t> expand(const axis& a, const std::string& text) {
  return integers(parse_axis_values(a, parse_axis_override(text)));
}

TEST(AxisOverride, SplitsBenchmarkNamePow2AndSpec) {
  const auto plain = parse_axis_override("M=4096,8192");
  EXPECT_EQ(plain.benchmark, "");
  EXPECT_EQ(plain.name, "M");
  EXPECT_EQ(plain.spec, "4096,8192");
  EXPECT_FALSE(plain.pow2);

  const auto full = parse_axis_override("gemm:N[pow2]=[2:10:2]");
  EXPECT_EQ(full.benchmark, "gemm");
  EXPECT_EQ(full.name, "N");
  EXPECT_EQ(full.spec, "2:10:2");
  EXPECT_TRUE(full.pow2);
}

TEST(AxisOverride, RejectsMalformedText) {
  for (const char* bad : {"M", "=4", "M=", ":M=4", "M N=4", "M=[]", "gemm:=4"}) {
    EXPECT_THROW((void)parse_axis_override(bad), usage_error) << bad;
  }
}

TEST(AxisValues, ListsRangesAndSuffixes) {
  const auto size = size_axis("size", {1}, "bytes");
  EXPECT_EQ(expand(size, "size=1M:8M:x2"), (std::vector<std::int64_t>{1 << 20, 2 << 20, 4 << 20, 8 << 20}));
  EXPECT_EQ(expand(size, "size=1M:8G:x2").size(), 14u);  // the seed's 1M .. 8G sweep
  EXPECT_EQ(expand(size, "size=1K:3K:+1K"), (std::vector<std::int64_t>{1024, 2048, 3072}));
  EXPECT_EQ(expand(size, "size=1:7:3"), (std::vector<std::int64_t>{1, 4, 7}));
  EXPECT_EQ(expand(size, "size=1:3"), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(expand(size, "size=4,1:2,16"), (std::vector<std::int64_t>{4, 1, 2, 16}));
  EXPECT_EQ(expand(size, "size=10:100:x3"), (std::vector<std::int64_t>{10, 30, 90}));
}

TEST(AxisValues, Pow2TakesExponents) {
  const auto n = integer_axis("N", {1}, "");
  EXPECT_EQ(expand(n, "N[pow2]=10:14:2"), (std::vector<std::int64_t>{1024, 4096, 16384}));
  EXPECT_EQ(expand(n, "N[pow2]=[2,3]"), (std::vector<std::int64_t>{4, 8}));
  EXPECT_THROW((void)expand(n, "N[pow2]=63"), usage_error);
  EXPECT_THROW((void)expand(n, "N[pow2]=-1"), usage_error);
}

TEST(AxisValues, FloatingAxes) {
  const auto ratio = floating_axis("ratio", {0.5}, "");
  const auto values = parse_axis_values(ratio, parse_axis_override("ratio=0.1:0.5:0.1"));
  ASSERT_EQ(values.size(), 5u);
  EXPECT_NEAR(std::get<double>(values[4]), 0.5, 1e-12);
  const auto geometric = parse_axis_values(ratio, parse_axis_override("ratio=1:8:x2"));
  EXPECT_EQ(geometric.size(), 4u);
  EXPECT_THROW((void)parse_axis_values(ratio, parse_axis_override("ratio=abc")), usage_error);
  EXPECT_THROW((void)parse_axis_values(ratio, parse_axis_override("ratio[pow2]=3")), usage_error);
}

TEST(AxisValues, StringChoices) {
  const auto dtype = string_axis("dtype", {"fp64"}, "", {"fp64", "fp32"});
  const auto values = parse_axis_values(dtype, parse_axis_override("dtype=fp32,fp64"));
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(std::get<std::string>(values[0]), "fp32");
  EXPECT_THROW((void)parse_axis_values(dtype, parse_axis_override("dtype=fp16")), usage_error);
  EXPECT_THROW((void)parse_axis_values(dtype, parse_axis_override("dtype=fp32:fp64")), usage_error);
}

TEST(AxisValues, RejectsBadRanges) {
  const auto size = size_axis("size", {1}, "");
  for (const char* bad : {"size=8:1", "size=1:8:x1", "size=0:8:x2", "size=1:8:0", "size=1:2:3:4", "size=1,,2",
                          "size=1:8:xq", "size=abc", "size=1:1000000000"}) {
    EXPECT_THROW((void)expand(size, bad), usage_error) << bad;
  }
}

// Ranges whose span or step count does not fit their type (found by tests/fuzz/axis_fuzz.cpp,
// undefined behaviour that the asan build reports).
TEST(AxisValues, RangesAtTheLimitsOfTheirTypes) {
  const auto ratio = floating_axis("ratio", {0.5}, "");
  EXPECT_THROW((void)parse_axis_values(ratio, parse_axis_override("ratio=-1.7e308:1.7e308:1")), usage_error);
  EXPECT_THROW((void)parse_axis_values(ratio, parse_axis_override("ratio=0:1e300:1e-300")), usage_error);
  const auto m = integer_axis("M", {1}, "");
  EXPECT_EQ(expand(m, "M=-9000000000000000000:-9000000000000000000:+9000000000000000000"),
            (std::vector<std::int64_t>{-9000000000000000000}));
  // A full range and one more value (found by axis_fuzz.cpp: the single value was not counted).
  EXPECT_THROW((void)expand(m, "M=1:100000,0"), usage_error);
  EXPECT_EQ(expand(m, "M=1:99999,0").size(), max_axis_values);
  EXPECT_EQ(expand(m, "M=9223372036854775000:9223372036854775807:+500"),
            (std::vector<std::int64_t>{9223372036854775000, 9223372036854775500}));
  // The whole 64-bit span: 2^64 values, a count that is 0 modulo 2^64, refused; in steps of
  // 2^63-1, three values from the lowest.
  EXPECT_THROW((void)expand(m, "M=-9223372036854775808:9223372036854775807"), usage_error);
  EXPECT_EQ(expand(m, "M=-9223372036854775808:9223372036854775807:+9223372036854775807"),
            (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1, 9223372036854775806}));
}

// A range is counted before it is expanded: the message names the limit, for a range of 10^18
// values as for one just past the limit.
TEST(AxisValues, ARangeIsCountedBeforeItIsExpanded) {
  const auto m = integer_axis("M", {1}, "");
  for (const char* override_text : {"M=1:1000000000000000000", "M=0:100000", "M=1:2,1:100000:+1"}) {
    try {
      (void)expand(m, override_text);
      FAIL() << override_text << ": no exception";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("more than 100000 values"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(expand(m, "M=0:99999").size(), max_axis_values);
  EXPECT_EQ(expand(m, "M=-10:10:+7"), (std::vector<std::int64_t>{-10, -3, 4}));
}

TEST(AxisValues, ErrorIsOneLineAndNamesTheOverride) {
  try {
    (void)expand(size_axis("size", {1}, ""), "size=1M:8Q");
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos);
    EXPECT_NE(message.find("8Q"), std::string::npos);
  }
}

TEST(AxisDisplay, SizesAsLabels) {
  const auto size = size_axis("size", {1}, "");
  EXPECT_EQ(display_value(size, axis_value{std::int64_t{1} << 30}), "1G");
  EXPECT_EQ(display_value(integer_axis("M", {}, ""), axis_value{std::int64_t{4096}}), "4096");
  EXPECT_EQ(to_string(axis_value{std::string("fp32")}), "fp32");
  EXPECT_EQ(to_string(axis_value{0.5}), "0.5");
}

}  // namespace
}  // namespace ironbench::core
