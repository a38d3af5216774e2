// The rounds of a pairwise sweep: every pair exactly once, pairs disjoint within a round,
// N-1 rounds for even N and N for odd N (one bye per participant).
#include "comm/pairwise_schedule.hpp"

#include <gtest/gtest.h>

#include <set>

namespace ironbench::comm {
namespace {

TEST(PairwiseSchedule, EveryPairOnceInDisjointRounds) {
  for (int n = 0; n <= 33; ++n) {
    const auto rounds = pairwise_rounds(n);
    ASSERT_EQ(static_cast<int>(rounds.size()), pairwise_round_count(n)) << n;
    std::set<participant_pair> seen;
    std::vector<int> byes(static_cast<std::size_t>(n), 0);
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_GE(a, 0);
        EXPECT_LT(b, n);
        EXPECT_TRUE(busy.insert(a).second) << n << ": " << a << " twice in one round";
        EXPECT_TRUE(busy.insert(b).second) << n << ": " << b << " twice in one round";
        EXPECT_TRUE(seen.insert({a, b}).second) << n << ": pair " << a << "-" << b << " twice";
      }
      EXPECT_EQ(static_cast<int>(round.size()), n / 2) << n;
      for (int i = 0; i < n; ++i) {
        if (!busy.contains(i)) ++byes[static_cast<std::size_t>(i)];
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << n;
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(byes[static_cast<std::size_t>(i)], n >= 2 ? n % 2 : 0) << n << ": byes of " << i;
  }
}

TEST(PairwiseSchedule, RoundCounts) {
  EXPECT_EQ(pairwise_round_count(0), 0);
  EXPECT_EQ(pairwise_round_count(1), 0);
  EXPECT_EQ(pairwise_round_count(2), 1);
  EXPECT_EQ(pairwise_round_count(3), 3);
  EXPECT_EQ(pairwise_round_count(4), 3);
  EXPECT_EQ(pairwise_round_count(8), 7);
  EXPECT_EQ(pairwise_round_count(9), 9);
}

TEST(PairwiseSchedule, PartnerInRound) {
  const auto rounds = pairwise_rounds(3);
  for (const auto& round : rounds) {
    int sitting_out = 0;
    for (int i = 0; i < 3; ++i) {
      const int p = partner_in(round, i);
      if (p < 0) {
        ++sitting_out;
        continue;
      }
      EXPECT_EQ(partner_in(round, p), i);
    }
    EXPECT_EQ(sitting_out, 1);
  }
  EXPECT_EQ(partner_in(pairwise_rounds(2).front(), 1), 0);
  EXPECT_EQ(partner_in(pairwise_rounds(2).front(), 5), -1);
}

}  // namespace
}  // namespace ironbench::comm
