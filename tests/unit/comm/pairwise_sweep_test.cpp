// The pairwise sweep's pure parts: --pairs' modes, who measures, which faults apply, the
// data pattern every received byte is checked against, and the matrices and cases of a result.
#include "comm/pairwise_sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "comm/pairwise_data.hpp"
#include "core/error.hpp"

namespace ironbench::comm {
namespace {

TEST(PairwiseSweep, Modes) {
  EXPECT_EQ(parse_pair_mode("nodes"), pair_mode::nodes);
  EXPECT_EQ(parse_pair_mode("ranks"), pair_mode::ranks);
  try {
    (void)parse_pair_mode("links");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "--pairs takes nodes or ranks, not 'links'");
  }
  EXPECT_EQ(default_pair_sizes(), (std::vector<std::size_t>{65536, 1048576, 16777216}));
}

TEST(PairwiseSweep, NodesAreMeasuredByTheirLowestRank) {
  const std::vector<std::string> hosts = {"a", "a", "b", "c", "b", "c", "a", "d"};
  const auto nodes = select_participants(pair_mode::nodes, hosts);
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].rank, 0);
  EXPECT_EQ(nodes[0].label, "a");
  EXPECT_EQ(nodes[0].ranks_on_node, 3);
  EXPECT_EQ(nodes[1].rank, 2);
  EXPECT_EQ(nodes[1].label, "b");
  EXPECT_EQ(nodes[2].rank, 3);
  EXPECT_EQ(nodes[3].rank, 7);
  EXPECT_EQ(nodes[3].ranks_on_node, 1);
  const auto ranks = select_participants(pair_mode::ranks, hosts);
  ASSERT_EQ(ranks.size(), 8u);
  EXPECT_EQ(ranks[4].rank, 4);
  EXPECT_EQ(ranks[4].label, "rank 4");
  EXPECT_EQ(ranks[4].host, "b");
  EXPECT_EQ(select_participants(pair_mode::nodes, {"x", "x"}).size(), 1u);
}

TEST(PairwiseSweep, AFaultMustNameARankThatMeasures) {
  const auto nodes = select_participants(pair_mode::nodes, {"a", "a", "b", "b"});
  EXPECT_NO_THROW(check_fault_applies(parse_fault("slow@2"), nodes, pair_mode::nodes));
  EXPECT_NO_THROW(check_fault_applies(parse_fault("slow-link@0-2:5"), nodes, pair_mode::nodes));
  EXPECT_NO_THROW(check_fault_applies(parse_fault("hang@1"), nodes, pair_mode::nodes));
  try {
    check_fault_applies(parse_fault("slow@1"), nodes, pair_mode::nodes);
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(),
                 "--inject-fault slow@1: rank 1 takes no part in --pairs nodes (the ranks that measure: 0, 2)");
  }
  EXPECT_THROW(check_fault_applies(parse_fault("slow-link@0-3"), nodes, pair_mode::nodes), usage_error);
  EXPECT_THROW(check_fault_applies(parse_fault("slow@9"), nodes, pair_mode::nodes), usage_error);
  const auto ranks = select_participants(pair_mode::ranks, {"a", "a", "b", "b"});
  EXPECT_NO_THROW(check_fault_applies(parse_fault("slow@1"), ranks, pair_mode::ranks));
}

TEST(PairwiseSweep, EveryWrongByteIsCounted) {
  for (const std::size_t bytes : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{4099}}) {
    std::vector<unsigned char> data(bytes);
    fill_pair_pattern(data.data(), bytes, 3, 5, 42);
    EXPECT_EQ(count_pattern_mismatches(data.data(), bytes, 3, 5, 42), 0) << bytes;
    data[bytes - 1] ^= 0x10;
    EXPECT_EQ(count_pattern_mismatches(data.data(), bytes, 3, 5, 42), 1) << bytes;
  }
  // Another sender, receiver or exchange differs in nearly every byte (a stale buffer, a byte
  // from the wrong peer).
  std::vector<unsigned char> data(4096);
  fill_pair_pattern(data.data(), data.size(), 3, 5, 42);
  EXPECT_GT(count_pattern_mismatches(data.data(), data.size(), 5, 3, 42), 4000);
  EXPECT_GT(count_pattern_mismatches(data.data(), data.size(), 3, 5, 43), 4000);
  EXPECT_GT(count_pattern_mismatches(data.data(), data.size(), 3, 4, 42), 4000);
  std::vector<unsigned char> zeros(4096, 0);
  EXPECT_GT(count_pattern_mismatches(zeros.data(), zeros.size(), 3, 5, 42), 4000);
}

pairwise_result three_nodes() {
  pairwise_result r;
  r.mode = pair_mode::nodes;
  r.ranks = 6;
  r.participants = select_participants(pair_mode::nodes, {"a", "a", "b", "b", "c", "c"});
  r.rounds = 3;
  r.sizes = {1024, 4096};
  r.iterations = 5;
  r.pairs = {
      {0, 1, 4096, 10, 9, 18, 0}, {0, 2, 4096, 8, 7, 14, 0}, {1, 2, 4096, 6, 5, 10, 3}, {0, 1, 1024, 1, 1, 2, 0}};
  return r;
}

TEST(PairwiseSweep, MatricesOfAResult) {
  const auto r = three_nodes();
  const auto one_way = pair_matrix(r, 4096, "one_way");
  ASSERT_EQ(one_way.size(), 3u);
  EXPECT_TRUE(std::isnan(one_way[0][0]));
  EXPECT_DOUBLE_EQ(one_way[0][1], 10);
  EXPECT_DOUBLE_EQ(one_way[1][0], 9);
  EXPECT_DOUBLE_EQ(one_way[2][1], 5);
  const auto both = pair_matrix(r, 4096, "both");
  EXPECT_DOUBLE_EQ(both[1][2], 10);
  EXPECT_DOUBLE_EQ(both[2][1], 10);
  const auto small = pair_matrix(r, 1024, "one_way");
  EXPECT_TRUE(std::isnan(small[0][2])) << "not measured at 1 KiB";

  const auto j = to_json(r);
  EXPECT_EQ(j.at("mode"), "nodes");
  EXPECT_EQ(j.at("pairs"), 3);
  EXPECT_EQ(j.at("rounds"), 3);
  EXPECT_EQ(j.at("participants").size(), 3u);
  EXPECT_EQ(j.at("participants")[1].at("rank"), 2);
  ASSERT_EQ(j.at("matrices").size(), 2u);
  EXPECT_EQ(j.at("matrices")[1].at("bytes"), 4096);
  EXPECT_TRUE(j.at("matrices")[1].at("one_way_gbs")[0][0].is_null());
  EXPECT_DOUBLE_EQ(j.at("matrices")[1].at("one_way_gbs")[0][1].get<double>(), 10);
  EXPECT_EQ(j.at("judged_at_bytes"), 4096);

  const auto cases = pairwise_cases(r);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].benchmark, "pairwise");
  EXPECT_EQ(cases[0].params.string("link"), "a <-> b");
  EXPECT_EQ(cases[0].params.integer("size"), 4096);
  EXPECT_EQ(cases[0].status, core::case_status::valid);
  EXPECT_EQ(cases[2].status, core::case_status::invalid) << "3 wrong bytes";
  EXPECT_DOUBLE_EQ(cases[2].find_metric("wrong_bytes")->value, 3);
  EXPECT_DOUBLE_EQ(cases[1].find_metric("b_to_a_gbs")->value, 7);
  EXPECT_NE(cases[1].find_metric("b_to_a_gbs")->description.find("the fastest of"), std::string::npos);
}

TEST(PairwiseSweep, TheLargestSizeIsJudged) {
  EXPECT_EQ(judged_pair_sizes(default_pair_sizes()), (std::vector<std::size_t>{16 << 20}));
  EXPECT_EQ(judged_pair_sizes({65536, 262144}), (std::vector<std::size_t>{262144}));
  EXPECT_EQ(judged_pair_sizes({4 << 20, 1 << 20, 4 << 20}), (std::vector<std::size_t>{4 << 20}));
  EXPECT_TRUE(judged_pair_sizes({}).empty());
}

TEST(PairwiseSweep, AProportionalSlowdownIsAFault) {
  const auto node = parse_pair_fault("slow@3:x3");
  EXPECT_EQ(node.fault.kind, fault_kind::slow);
  EXPECT_EQ(node.fault.rank, 3);
  EXPECT_DOUBLE_EQ(node.slowdown, 3);
  EXPECT_EQ(to_string(node), "slow@3:x3");
  const auto link = parse_pair_fault("slow-link@4-1:x2.5");
  EXPECT_EQ(link.fault.kind, fault_kind::slow_link);
  EXPECT_EQ(link.fault.rank, 1);
  EXPECT_EQ(link.fault.peer, 4);
  EXPECT_EQ(to_string(link), "slow-link@1-4:x2.5");
  // The forms in milliseconds, and the others, as parse_fault reads them.
  const auto ms = parse_pair_fault("slow@2:150");
  EXPECT_DOUBLE_EQ(ms.slowdown, 1);
  EXPECT_DOUBLE_EQ(ms.fault.delay_ms, 150);
  EXPECT_EQ(to_string(ms), "slow@2:150");
  EXPECT_EQ(parse_pair_fault("hang@1").fault.kind, fault_kind::hang);
  EXPECT_EQ(parse_pair_fault("").fault.kind, fault_kind::none);
  for (const char* bad :
       {"slow@2:x1", "slow@2:x0.5", "slow@2:x", "slow@2:xfast", "slow@2:x101", "hang@1:x3", "slow@x:x3"}) {
    EXPECT_THROW((void)parse_pair_fault(bad), usage_error) << bad;
  }
  try {
    (void)parse_pair_fault("slow@2:x0.5");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "--inject-fault slow@2:x0.5: the slowdown xK takes K above 1 and at most 100, not '0.5'");
  }
  const auto nodes = select_participants(pair_mode::nodes, {"a", "a", "b", "b"});
  try {
    check_fault_applies(parse_pair_fault("slow@1:x3"), nodes, pair_mode::nodes);
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(),
                 "--inject-fault slow@1:x3: rank 1 takes no part in --pairs nodes (the ranks that measure: 0, 2)");
  }
}

// 4 nodes at 64 KiB, 1 MiB and 16 MiB, every direction 10 GB/s (5 below 16 MiB) but those of link a <-> d
// (0 and 3) at `slow` x that.
pairwise_result four_nodes(double slow) {
  pairwise_result r;
  r.participants = select_participants(pair_mode::nodes, {"a", "b", "c", "d"});
  r.sizes = default_pair_sizes();
  r.judged_sizes = judged_pair_sizes(r.sizes);
  r.passes = 5;
  r.exchanges_per_pass = 4;
  for (const auto bytes : r.sizes) {
    const double good = bytes >= (16 << 20) ? 10 : 5;
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) {
        const double v = a == 0 && b == 3 ? slow * good : good;
        r.pairs.push_back({a, b, bytes, v, v, 2 * v, 0});
      }
    }
  }
  return r;
}

TEST(PairwiseSweep, TheSuspectsMeasuredAgainDecide) {
  // Slow in the rounds, not measured again: a suspect, not named.
  auto r = four_nodes(0.3);
  auto f = judge_pairs(r, default_pair_outlier_factor);
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_TRUE(f.bad_links.empty());
  const auto sweep = f;
  // Slow again: named.
  r.confirmations = {{0, 3, 1 << 20, 1.6, 1.7, 3, 0}, {0, 3, 16 << 20, 3.2, 3.1, 6, 0}};
  f = judge_pairs(r, default_pair_outlier_factor);
  ASSERT_EQ(f.bad_links.size(), 1u);
  EXPECT_NEAR(f.bad_links[0].confirm_ratio, 0.31, 1e-12);
  r.findings = f;
  const auto j = to_json(r);
  EXPECT_EQ(j.at("judged_sizes"), json::array({16 << 20}));
  EXPECT_EQ(j.at("judged_at_bytes"), 16 << 20);
  EXPECT_EQ(j.at("passes"), 5);
  EXPECT_EQ(j.at("exchanges_per_pass"), 4);
  EXPECT_EQ(j.at("measured_again").size(), 2u);
  EXPECT_EQ(j.at("measured_again")[1].at("a"), "a");
  EXPECT_EQ(j.at("measured_again")[1].at("b"), "d");
  EXPECT_NE(
      j.at("statistic").get<std::string>().find("its fastest of 20 exchanges, each timed alone (4 in each of 5 passes"),
      std::string::npos);
  EXPECT_NE(j.at("statistic").get<std::string>().find("its slower direction at 16 MiB"), std::string::npos);
  EXPECT_FALSE(j.at("measured_again")[1].at("control").get<bool>());
  // Fast when measured again against its controls a <-> b and b <-> d: not named.
  EXPECT_EQ(control_links(sweep), (std::vector<std::pair<int, int>>{{0, 1}, {1, 3}}));
  r.confirmations = {{0, 3, 1 << 20, 5, 5, 10, 0},    {0, 3, 16 << 20, 9, 10, 19, 0}, {0, 1, 1 << 20, 6, 6, 12, 0},
                     {0, 1, 16 << 20, 11, 11, 22, 0}, {1, 3, 1 << 20, 5, 5, 10, 0},   {1, 3, 16 << 20, 10, 10, 20, 0}};
  f = judge_pairs(r, default_pair_outlier_factor);
  EXPECT_TRUE(f.bad_links.empty());
  EXPECT_TRUE(f.low.empty());
  // At 0.6 x a link is a suspect (below 0.7 x), not named; at 0.75 x no link is a suspect.
  const auto high = judge_pairs(four_nodes(0.6), default_pair_outlier_factor);
  EXPECT_EQ(high.suspects.size(), 1u);
  EXPECT_TRUE(high.low.empty());
  EXPECT_TRUE(judge_pairs(four_nodes(0.75), default_pair_outlier_factor).suspects.empty());
}

}  // namespace
}  // namespace ironbench::comm
