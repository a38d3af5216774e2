// A point measured several times: the trimmed mean, and the cases of the repeats merged into
// one case per step and parameters, with the median as the value and the spread beside it.
#include <gtest/gtest.h>

#include "experiment/repeat_statistics.hpp"

namespace ironbench::experiment {
namespace {

core::case_result measured(const std::string& step, int size, double value,
                           core::case_status status = core::case_status::valid) {
  core::case_result c;
  c.benchmark = "stream";
  c.device = "cpu";
  c.params.set("size", std::int64_t{size});
  c.notes["step"] = step;
  c.status = status;
  if (status != core::case_status::valid) c.reason = "checksum mismatch";
  c.metrics.push_back({"bandwidth", value, "GB/s", ""});
  return c;
}

TEST(RepeatStatistics, TrimmedMeanCutsTheSameCountFromEachEnd) {
  EXPECT_DOUBLE_EQ(trimmed_mean({1, 2, 3, 4, 100}, 0.2), 3);   // cuts 1 and 100
  EXPECT_DOUBLE_EQ(trimmed_mean({1, 2, 3, 4, 100}, 0.1), 22);  // floor(0.5) = 0: the mean
  EXPECT_DOUBLE_EQ(trimmed_mean({5, 1, 9, 3}, 0.25), 4);       // cuts 1 and 9
  EXPECT_DOUBLE_EQ(trimmed_mean({7}, 0.4), 7);
  EXPECT_DOUBLE_EQ(trimmed_mean({}, 0.1), 0);
}

TEST(RepeatStatistics, RepeatsMergeIntoMediansWithTheirSpread) {
  const std::vector<std::vector<core::case_result>> repeats = {
      {measured("bench", 1024, 10), measured("bench", 2048, 20)},
      {measured("bench", 1024, 14), measured("bench", 2048, 22)},
      {measured("bench", 1024, 11), measured("bench", 2048, 90, core::case_status::invalid)},
  };
  const auto merged = merge_repeats(repeats, 0.1);
  ASSERT_EQ(merged.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(merged.cases[0].metrics[0].value, 11);
  EXPECT_EQ(merged.cases[0].series.at("bandwidth"), (std::vector<double>{10, 14, 11}));
  EXPECT_EQ(merged.cases[0].status, core::case_status::valid);
  EXPECT_DOUBLE_EQ(merged.cases[1].metrics[0].value, 22);
  EXPECT_EQ(merged.cases[1].status, core::case_status::invalid) << "one invalid repeat makes the case invalid";
  EXPECT_EQ(merged.cases[1].reason, "checksum mismatch");

  ASSERT_EQ(merged.statistics.size(), 2u);
  const auto& s = merged.statistics[0];
  EXPECT_EQ(s.at("case"), 0);
  EXPECT_EQ(s.at("step"), "bench");
  EXPECT_EQ(s.at("metric"), "bandwidth");
  EXPECT_EQ(s.at("repeats"), 3);
  EXPECT_DOUBLE_EQ(s.at("median").get<double>(), 11);
  EXPECT_DOUBLE_EQ(s.at("mean").get<double>(), 35.0 / 3);
  EXPECT_NEAR(s.at("stdev").get<double>(), 2.081666, 1e-6);  // sample standard deviation
  EXPECT_DOUBLE_EQ(s.at("trimmed_mean").get<double>(), 35.0 / 3);
}

TEST(RepeatStatistics, ASingleRepeatIsKeptAsMeasuredAndCasesOfOtherStepsStayApart) {
  const auto merged = merge_repeats({{measured("a", 1024, 10), measured("b", 1024, 30)}}, 0.1);
  ASSERT_EQ(merged.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(merged.cases[0].metrics[0].value, 10);
  EXPECT_DOUBLE_EQ(merged.cases[1].metrics[0].value, 30);
  EXPECT_TRUE(merged.cases[0].series.empty());
  EXPECT_TRUE(merged.statistics.empty());
}

TEST(RepeatStatistics, ACaseMissingFromARepeatKeepsTheRepeatsThatHaveIt) {
  const auto merged = merge_repeats({{measured("a", 1024, 10)}, {}, {measured("a", 1024, 20)}}, 0.1);
  ASSERT_EQ(merged.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(merged.cases[0].metrics[0].value, 15);
  EXPECT_EQ(merged.statistics[0].at("repeats"), 2);
}

}  // namespace
}  // namespace ironbench::experiment
