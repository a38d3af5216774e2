#include <gtest/gtest.h>

#include "platform/cpu_list.hpp"

namespace ironbench::platform {
namespace {

using cpus = std::vector<int>;

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (cpus{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("0"), (cpus{0}));
  EXPECT_EQ(parse_cpu_list("0-1\n"), (cpus{0, 1}));
  EXPECT_EQ(parse_cpu_list(" 5 , 2-3 "), (cpus{2, 3, 5}));
}

TEST(CpuList, SortsAndRemovesDuplicates) { EXPECT_EQ(parse_cpu_list("8-9,0-1,1,8"), (cpus{0, 1, 8, 9})); }

TEST(CpuList, EmptyInputGivesEmptyList) {
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("  \n").empty());
}

TEST(CpuList, MalformedInputGivesEmptyList) {
  for (const char* bad :
       {"a", "0-", "-3", "3-1", "0,,1", "0-3,", ",0", "1-2-3", "0x1", "1.5", "-1", "0-99999999", "0 1", "0;1"}) {
    EXPECT_TRUE(parse_cpu_list(bad).empty()) << bad;
  }
}

TEST(CpuList, FormatsCompactly) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({3, 1, 2, 2}), "1-3");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list(parse_cpu_list("0-3,8-11")), "0-3,8-11");
}

}  // namespace
}  // namespace ironbench::platform
