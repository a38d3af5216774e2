#include "core/text.hpp"

#include <gtest/gtest.h>

#include "core/utc_time.hpp"

namespace ironbench {
namespace {

using strings = std::vector<std::string>;

TEST(Text, TrimRemovesEveryKindOfSurroundingWhiteSpaceOnly) {
  EXPECT_EQ(trim("  a b\t\r\n"), "a b");
  EXPECT_EQ(trim("\v\fx\f"), "x");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim_copy(" 12 "), std::string("12"));
}

TEST(Text, SplitKeepsEmptyItemsSoCallersCanRejectThem) {
  EXPECT_EQ(split("a,,b"), (strings{"a", "", "b"}));
  EXPECT_EQ(split(""), (strings{""}));
  EXPECT_EQ(split("a,"), (strings{"a", ""}));
  EXPECT_EQ(split("x:y", ':'), (strings{"x", "y"}));
  EXPECT_EQ(split_non_empty("a,,b,"), (strings{"a", "b"}));
  EXPECT_TRUE(split_non_empty("").empty());
}

TEST(Text, LinesAndFields) {
  EXPECT_EQ(split_lines("a\r\nb\n\nc"), (strings{"a", "b", "", "c"}));
  EXPECT_EQ(split_lines("a\n"), (strings{"a"}));
  EXPECT_EQ(split_whitespace("  1\t 2  3 "), (strings{"1", "2", "3"}));
  EXPECT_EQ(split_fields(" a , b ,", ','), (strings{"a", "b", ""}));
}

TEST(Text, JoinIsTheInverseOfSplit) {
  EXPECT_EQ(join({"a", "", "b"}), "a,,b");
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(join({"", "x"}, ", "), ", x");
  EXPECT_EQ(join(split("p,q,,r")), "p,q,,r");
}

TEST(Text, HttpFieldNamesAreRfc9110Tokens) {
  for (const char* name : {"Authorization", "X-Api-Key", "x_trace.1", "!#$%&'*+-.^_`|~", "9"}) {
    EXPECT_TRUE(is_http_field_name(name)) << name;
  }
  for (const char* name : {"", "X Trace", "a=b", "passwd='x'", "u@h", "tab\tname", "caf\xc3\xa9", "(x)"}) {
    EXPECT_FALSE(is_http_field_name(name)) << name;
  }
}

TEST(UtcTime, FormatsInUtcWhateverTheLocalZone) {
  const auto t = std::chrono::system_clock::from_time_t(1795462894);  // 2026-11-23T19:41:34Z
  EXPECT_EQ(iso8601_utc(t), "2026-11-23T19:41:34Z");
  EXPECT_EQ(utc_time(t, "%Y%m%dT%H%M%SZ"), "20261123T194134Z");
}

}  // namespace
}  // namespace ironbench
