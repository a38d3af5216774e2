#include "core/units.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "core/checked_bytes.hpp"
#include "core/error.hpp"

namespace ironbench {
namespace {

TEST(ParseSize, BinarySuffixes) {
  EXPECT_EQ(parse_size("4096", "size"), 4096);
  EXPECT_EQ(parse_size("4K", "size"), 4096);
  EXPECT_EQ(parse_size("1M", "size"), 1 << 20);
  EXPECT_EQ(parse_size("8G", "size"), std::int64_t{8} << 30);
  EXPECT_EQ(parse_size("16GiB", "size"), std::int64_t{16} << 30);
  EXPECT_EQ(parse_size("2Ti", "size"), std::int64_t{2} << 40);
  EXPECT_EQ(parse_size("1m", "size"), 1 << 20);
  EXPECT_EQ(parse_size("512B", "size"), 512);
  EXPECT_EQ(parse_size(" 3 ", "size"), 3);
}

TEST(ParseSize, RejectsJunkNegativesAndOverflow) {
  for (const char* bad : {"", "abc", "1X", "1KB", "-1", "1.5M", "99999999999P", "M", "1MM"}) {
    EXPECT_THROW((void)parse_size(bad, "size"), usage_error) << bad;
  }
}

TEST(ParseSize, ErrorNamesTheValue) {
  try {
    (void)parse_size("12Q", "--axis size");
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--axis size"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("12Q"), std::string::npos);
  }
}

TEST(ParseInteger, AcceptsSigns) {
  EXPECT_EQ(parse_integer("-5", "x"), -5);
  EXPECT_EQ(parse_integer("+5", "x"), 5);
}

TEST(ParseNumber, FiniteOnly) {
  EXPECT_DOUBLE_EQ(parse_number("0.25", "x"), 0.25);
  EXPECT_DOUBLE_EQ(parse_number("1e3", "x"), 1000.0);
  for (const char* bad : {"", "nan", "inf", "1.0x", "1e999"}) {
    EXPECT_THROW((void)parse_number(bad, "x"), usage_error) << bad;
  }
}

TEST(ParseDuration, Units) {
  EXPECT_DOUBLE_EQ(parse_duration_s("2", "t"), 2.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("2s", "t"), 2.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("250ms", "t"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration_s("100us", "t"), 1e-4);
  EXPECT_DOUBLE_EQ(parse_duration_s("1.5m", "t"), 90.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("12h", "t"), 43200.0);
  EXPECT_THROW((void)parse_duration_s("-1s", "t"), usage_error);
  EXPECT_THROW((void)parse_duration_s("fast", "t"), usage_error);
}

TEST(ParseDuration, RefusesDurationsBeyondADouble) {
  // 1e308 hours are finite as a number but not in seconds (found by tests/fuzz/units_fuzz.cpp).
  EXPECT_THROW((void)parse_duration_s("1e308h", "t"), usage_error);
  EXPECT_THROW((void)parse_duration_s("1.7e308m", "t"), usage_error);
}

TEST(ParseSize, MostNegativeValueWithASuffixIsOutOfRange) {
  EXPECT_THROW((void)parse_integer("-9223372036854775808K", "n"), usage_error);
  EXPECT_EQ(parse_integer("-9223372036854775808", "n"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parse_integer("-8589934592G", "n"), std::numeric_limits<std::int64_t>::min());
}

TEST(Format, BytesAndLabels) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(1.5 * (1 << 20)), "1.5 MiB");
  EXPECT_EQ(format_size_label(1 << 20), "1M");
  EXPECT_EQ(format_size_label(std::int64_t{8} << 30), "8G");
  EXPECT_EQ(format_size_label(1000), "1000");
  EXPECT_EQ(format_seconds(0.00123), "1.23 ms");
  EXPECT_EQ(format_seconds(2.5e-6), "2.5 us");
  EXPECT_EQ(format_number(0.123456), "0.123");
  EXPECT_EQ(format_number(1234.4), "1234");
}

TEST(CheckedBytes, ProductsAndSumsSaturateInsteadOfWrapping) {
  EXPECT_EQ(core::bytes_times(3, 1ull << 20), 3ull << 20);
  EXPECT_EQ(core::bytes_plus(1, 2), 3u);
  EXPECT_EQ(core::bytes_times(1ull << 32, 1ull << 32), core::uncountable_bytes);     // 2^64
  EXPECT_EQ(core::bytes_times(3, 6148914691236517208ull), core::uncountable_bytes);  // wraps to 8 otherwise
  EXPECT_EQ(core::bytes_plus(core::uncountable_bytes, 1), core::uncountable_bytes);
  EXPECT_EQ(core::bytes_times(core::uncountable_bytes, 0), 0u);
}

}  // namespace
}  // namespace ironbench
