#include "comm/straggler_report.hpp"

#include <gtest/gtest.h>

#include <random>

namespace ironbench::comm {
namespace {

// Steps where every rank ends together at `length` ms after the first arrival and rank
// `late` arrives `lateness` ms after the others (plus a little noise on every rank).
std::vector<timed_step> steps_with(int ranks, int late, double lateness_ms, double length_ms, int count,
                                   unsigned seed = 7) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> noise(0, 0.02);
  std::vector<timed_step> steps;
  for (int s = 0; s < count; ++s) {
    timed_step step{"step " + std::to_string(s), {}};
    for (int r = 0; r < ranks; ++r) {
      const double arrival = (r == late ? lateness_ms : 0) + noise(random);
      step.rank_seconds.push_back((length_ms - arrival) * 1e-3);
    }
    steps.push_back(step);
  }
  return steps;
}

TEST(StragglerReport, NamesTheRankThatArrivesLast) {
  const auto report = find_stragglers(steps_with(4, 2, 20, 25, 12), {"a", "a", "b", "b"});
  EXPECT_EQ(report.steps, 12u);
  EXPECT_EQ(report.ranks, 4);
  ASSERT_EQ(report.per_rank.size(), 4u);
  const auto& late = report.per_rank[2];
  EXPECT_TRUE(late.named);
  EXPECT_EQ(late.steps_last, 12u);
  EXPECT_DOUBLE_EQ(late.share_last, 1.0);
  EXPECT_NEAR(late.median_lateness_ms, 20, 0.05);
  for (const int r : {0, 1, 3}) EXPECT_FALSE(report.per_rank[static_cast<std::size_t>(r)].named) << r;
  const auto lines = straggler_lines(report);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("rank 2 (host b)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("12 of 12 steps (100%)"), std::string::npos) << lines[0];
  const auto j = straggler_json(report, "m");
  ASSERT_EQ(j["named"].size(), 1u);
  EXPECT_EQ(j["named"][0]["rank"], 2);
  EXPECT_EQ(j["named"][0]["host"], "b");
  EXPECT_EQ(j["per_rank"].size(), 4u);
  EXPECT_EQ(j["method"], "m");
}

TEST(StragglerReport, NoiseAloneNamesNone) {
  // Every rank on time: the last rank changes from step to step by microseconds.
  const auto report = find_stragglers(steps_with(4, -1, 0, 5, 40), {});
  for (const auto& r : report.per_rank) EXPECT_FALSE(r.named) << r.rank;
  const auto lines = straggler_lines(report);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("none"), std::string::npos);
}

TEST(StragglerReport, ConsistentButTinyLatenessIsNotAStraggler) {
  // Always last, by 0.05 ms of 10 ms steps: below both the absolute and the relative floor.
  const auto report = find_stragglers(steps_with(3, 1, 0.05, 10, 20), {});
  EXPECT_EQ(report.per_rank[1].steps_last, 20u);
  EXPECT_FALSE(report.per_rank[1].named);
}

TEST(StragglerReport, LastInASmallShareIsNotAStraggler) {
  auto steps = steps_with(4, 3, 5, 10, 3);
  const auto on_time = steps_with(4, -1, 0, 10, 7);
  steps.insert(steps.end(), on_time.begin(), on_time.end());
  const auto report = find_stragglers(steps, {});
  EXPECT_EQ(report.steps, 10u);
  EXPECT_FALSE(report.per_rank[3].named);  // last in 3 of 10 steps at best
}

TEST(StragglerReport, TooFewStepsOrRanksNameNone) {
  EXPECT_FALSE(find_stragglers(steps_with(4, 0, 20, 25, 2), {}).per_rank[0].named);
  const auto one_rank = find_stragglers(steps_with(1, 0, 20, 25, 10), {});
  EXPECT_EQ(one_rank.steps, 0u);
  EXPECT_TRUE(straggler_lines(one_rank).empty());
}

TEST(StragglerReport, SkipsStepsWithMissingOrBadTimes) {
  auto steps = steps_with(3, 0, 10, 20, 5);
  steps.push_back({"short", {0.01, 0.02}});
  steps.push_back({"nan", {0.01, std::nan(""), 0.02}});
  EXPECT_EQ(find_stragglers(steps, {}).steps, 5u);
}

TEST(StragglerReport, StepsOfARunCoverEveryPlacementThatRan) {
  sweep_row row{};
  row.c = collective::all_reduce;
  row.bytes = 1024;
  row.out_of_place.ran = true;
  row.out_of_place.rank_seconds = {0.1, 0.2};
  row.in_place.ran = true;
  row.in_place.rank_seconds = {0.3, 0.4};
  sweep_row skipped = row;
  skipped.in_place.ran = false;
  skipped.out_of_place.rank_seconds = {0.1};  // one rank only: no step
  const auto steps = collective_steps({{row, skipped}, {row}});
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[1].label, "trial 1 all_reduce 1024 B in place");
  EXPECT_EQ(steps[1].rank_seconds, (std::vector<double>{0.3, 0.4}));
}

}  // namespace
}  // namespace ironbench::comm
