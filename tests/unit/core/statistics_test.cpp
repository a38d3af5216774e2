#include "core/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ironbench::core {
namespace {

TEST(Percentile, InterpolatesLinearlyBetweenClosestRanks) {
  const std::vector<double> sorted{1, 2, 3, 4};
  // h = (n - 1) p / 100: p50 -> 1.5 -> 2.5; p10 -> 0.3 -> 1.3; p90 -> 2.7 -> 3.7
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 10), 1.3);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 100), 4);
}

TEST(Percentile, SortsItsInput) {
  const std::vector<double> samples{10, 1, 7, 3, 5};
  EXPECT_DOUBLE_EQ(percentile(samples, 50), 5);
  EXPECT_DOUBLE_EQ(percentile(samples, 25), 3);     // h = 1 -> 3
  EXPECT_DOUBLE_EQ(percentile(samples, 99), 9.88);  // h = 3.96 -> 7 + 0.96 * 3
}

TEST(Percentile, SingleSampleIsEveryPercentile) {
  const std::vector<double> one{42};
  EXPECT_DOUBLE_EQ(percentile(one, 10), 42);
  EXPECT_DOUBLE_EQ(percentile(one, 90), 42);
}

TEST(Percentile, RejectsEmptyInputAndOutOfRange) {
  EXPECT_THROW((void)percentile(std::vector<double>{}, 50), std::exception);
  EXPECT_THROW((void)percentile(std::vector<double>{1.0}, 101), std::exception);
}

TEST(Stddev, SampleAndPopulationDivisors) {
  const std::vector<double> samples{2, 4, 4, 4, 5, 5, 7, 9};  // mean 5, squared deviations 32
  EXPECT_DOUBLE_EQ(mean(samples), 5.0);
  EXPECT_DOUBLE_EQ(population_stddev(samples), 2.0);              // sqrt(32 / 8)
  EXPECT_NEAR(sample_stddev(samples), 2.138089935299395, 1e-15);  // sqrt(32 / 7)
  EXPECT_EQ(sample_stddev(std::vector<double>{3.0}), 0.0);
}

TEST(Summarize, MatchesHandComputedValues) {
  const std::vector<double> samples{0.5, 0.1, 0.3, 0.2, 0.4};
  const auto s = summarize(samples);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 0.3);
  EXPECT_DOUBLE_EQ(s.p10, 0.14);  // h = 0.4 -> 0.1 + 0.4 * 0.1
  EXPECT_DOUBLE_EQ(s.p90, 0.46);  // h = 3.6 -> 0.4 + 0.6 * 0.1
  EXPECT_DOUBLE_EQ(s.min, 0.1);
  EXPECT_DOUBLE_EQ(s.max, 0.5);
  EXPECT_DOUBLE_EQ(s.mean, 0.3);
  EXPECT_NEAR(s.stddev, 0.15811388300841897, 1e-15);  // sqrt(0.1 / 4)
  EXPECT_NEAR(s.cv, 0.15811388300841897 / 0.3, 1e-15);
}

TEST(Summarize, EmptyGivesZeros) {
  const auto s = summarize(std::vector<double>{});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median, 0.0);
}

}  // namespace
}  // namespace ironbench::core
