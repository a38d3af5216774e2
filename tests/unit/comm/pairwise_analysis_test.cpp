// Pairwise findings from matrices: the reference link, the suspects below a factor of it, the
// suspects slow again when measured again, and a node most of whose links are low named as the
// node, against single low links named as links. The noise cases draw healthy links as a
// loaded machine measures them (each a best of trials, up to 45 % below what the link can do)
// and the fault cases slow a node's or a link's exchanges 3x amid the same noise.
#include "comm/pairwise_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace ironbench::comm {
namespace {

using matrix = std::vector<std::vector<double>>;

// n x n of `good` (diagonal NaN).
matrix uniform(int n, double good) {
  matrix m(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), good));
  for (int i = 0; i < n; ++i) m[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = std::nan("");
  return m;
}

void set_link(matrix& m, int a, int b, double v) {
  m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = v;
  m[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = v;
}

// n x n where every direction of every link is `good` x a draw from [low, 1], and the links of
// node `slow_node` (when >= 0) and the link `slow_link` (when a != b) `slowdown` times slower.
matrix noisy(std::mt19937& rng, int n, double good, double low, int slow_node = -1,
             std::pair<int, int> slow_link = {0, 0}, double slowdown = 3) {
  std::uniform_real_distribution<double> draw(low, 1.0);
  auto m = uniform(n, good);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const bool on_link = slow_link.first != slow_link.second && std::min(a, b) == slow_link.first &&
                           std::max(a, b) == slow_link.second;
      const bool slow = a == slow_node || b == slow_node || on_link;
      m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = good * draw(rng) / (slow ? slowdown : 1);
    }
  }
  return m;
}

const std::vector<std::string> labels = {"a", "b", "c", "d", "e", "f", "g", "h"};

TEST(PairwiseAnalysis, AllEqualNamesNothing) {
  const auto f = analyse_pairs(uniform(4, 10));
  EXPECT_TRUE(f.judged);
  EXPECT_EQ(f.links, 6);
  EXPECT_DOUBLE_EQ(f.factor, default_pair_outlier_factor);
  EXPECT_DOUBLE_EQ(f.median, 10);
  EXPECT_DOUBLE_EQ(f.threshold, 5);
  EXPECT_TRUE(f.suspects.empty());
  EXPECT_TRUE(f.low.empty());
  EXPECT_TRUE(f.nodes.empty());
  EXPECT_TRUE(f.bad_links.empty());
  EXPECT_EQ(describe(f, labels), "no link below 0.5 x the reference 10 GB/s (6 links)");
}

TEST(PairwiseAnalysis, TheReferenceIsTheUpperQuartileLink) {
  // 4 nodes, node c's three links at 1: the median link is 5.5 (half the links are c's), the
  // upper quartile (1, 1, 1, 10, 10, 10 at 3.75 of 0..5) 10.
  std::vector<link_value> links = {{0, 1, 10}, {0, 2, 1}, {0, 3, 10}, {1, 2, 1}, {1, 3, 10}, {2, 3, 1}};
  EXPECT_DOUBLE_EQ(reference_link(links), 10);
  // 3 nodes, link b-c at 1: 1, 10, 10 at 1.5 of 0..2.
  EXPECT_DOUBLE_EQ(reference_link({{0, 1, 10}, {0, 2, 10}, {1, 2, 1}}), 10);
  // Between two values: 8, 9, 10, 12 at 2.25 of 0..3.
  EXPECT_DOUBLE_EQ(reference_link({{0, 1, 8}, {0, 2, 9}, {1, 2, 10}, {0, 3, 12}}), 10.5);
  EXPECT_DOUBLE_EQ(reference_link({{0, 1, 7}}), 7);
  EXPECT_DOUBLE_EQ(reference_link({}), 0);
}

TEST(PairwiseAnalysis, ASlowNodeIsTheNodeNotItsLinks) {
  for (const int n : {4, 5, 8}) {
    auto m = uniform(n, 10);
    for (int i = 0; i < n; ++i) {
      if (i != 2) set_link(m, 2, i, 10.0 / 3);
    }
    const auto f = analyse_pairs(m);
    ASSERT_TRUE(f.judged);
    EXPECT_DOUBLE_EQ(f.median, 10) << "the slow node's links do not pull the reference down";
    ASSERT_EQ(f.nodes.size(), 1u) << n;
    EXPECT_EQ(f.nodes[0].node, 2);
    EXPECT_EQ(f.nodes[0].low_links, n - 1);
    EXPECT_EQ(f.nodes[0].links, n - 1);
    EXPECT_EQ(static_cast<int>(f.low.size()), n - 1);
    EXPECT_TRUE(f.bad_links.empty()) << "every low link is explained by the node";
    EXPECT_NE(describe(f, labels).find("node c ("), std::string::npos) << describe(f, labels);
  }
}

TEST(PairwiseAnalysis, ASlowLinkIsTheLink) {
  for (const int n : {3, 4, 8}) {
    auto m = uniform(n, 10);
    set_link(m, 0, n - 1, 10.0 / 3);
    const auto f = analyse_pairs(m);
    ASSERT_TRUE(f.judged);
    EXPECT_TRUE(f.nodes.empty()) << n;
    ASSERT_EQ(f.bad_links.size(), 1u);
    EXPECT_EQ(f.bad_links[0].a, 0);
    EXPECT_EQ(f.bad_links[0].b, n - 1);
    EXPECT_DOUBLE_EQ(f.bad_links[0].value, 10.0 / 3);
    EXPECT_NEAR(f.bad_links[0].ratio, 1.0 / 3, 1e-12);
    EXPECT_NE(describe(f, labels).find("link a <-> " + labels[static_cast<std::size_t>(n - 1)]), std::string::npos);
  }
}

TEST(PairwiseAnalysis, OneSlowDirectionMakesTheLinkSlow) {
  auto m = uniform(4, 10);
  m[1][3] = 3;  // 1 -> 3 only
  const auto f = analyse_pairs(m);
  ASSERT_EQ(f.bad_links.size(), 1u);
  EXPECT_EQ(f.bad_links[0].a, 1);
  EXPECT_EQ(f.bad_links[0].b, 3);
}

TEST(PairwiseAnalysis, ANodeAndALinkTogether) {
  auto m = uniform(8, 10);
  for (int i = 0; i < 8; ++i) {
    if (i != 5) set_link(m, 5, i, 2);
  }
  set_link(m, 0, 1, 3);
  const auto f = analyse_pairs(m);
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].node, 5);
  ASSERT_EQ(f.bad_links.size(), 1u);
  EXPECT_EQ(f.bad_links[0].a, 0);
  EXPECT_EQ(f.bad_links[0].b, 1);
  EXPECT_EQ(f.low.size(), 8u);
  EXPECT_DOUBLE_EQ(f.low.front().value, 2);  // lowest first
}

TEST(PairwiseAnalysis, HalfItsLinksLowNamesTheNode) {
  // 8 nodes: 7 links each; 4 low (half, rounded up) names it, 3 do not.
  EXPECT_EQ(low_links_naming_a_node(7), 4);
  EXPECT_EQ(low_links_naming_a_node(3), 2);
  EXPECT_EQ(low_links_naming_a_node(2), 2);
  EXPECT_EQ(low_links_naming_a_node(1), 0);
  auto four = uniform(8, 10);
  for (int i = 1; i <= 4; ++i) set_link(four, 0, i, 1);
  EXPECT_EQ(analyse_pairs(four).nodes.size(), 1u);
  EXPECT_EQ(analyse_pairs(four).suspects.size(), 7u) << "all of a suspect node's links";
  auto three = uniform(8, 10);
  for (int i = 1; i <= 3; ++i) set_link(three, 0, i, 1);
  const auto f = analyse_pairs(three);
  EXPECT_TRUE(f.nodes.empty());
  EXPECT_TRUE(f.suspect_nodes.empty());
  EXPECT_EQ(f.bad_links.size(), 3u);
}

TEST(PairwiseAnalysis, TheFactorDecides) {
  auto m = uniform(4, 10);
  set_link(m, 1, 2, 4.5);
  EXPECT_EQ(analyse_pairs(m).bad_links.size(), 1u);
  EXPECT_TRUE(analyse_pairs(m, 0.4).bad_links.empty());
  EXPECT_EQ(analyse_pairs(m, 0.8).bad_links.size(), 1u);
  set_link(m, 1, 2, 6);
  EXPECT_TRUE(analyse_pairs(m).bad_links.empty()) << "0.6 x the reference is above the default";
  EXPECT_EQ(analyse_pairs(m).suspects.size(), 1u) << "below 0.7 x (0.5 x 1.4): measured again";
  set_link(m, 1, 2, 7);
  EXPECT_TRUE(analyse_pairs(m).suspects.empty()) << "0.7 x: no suspect";
  EXPECT_THROW((void)analyse_pairs(m, 0), std::invalid_argument);
  EXPECT_THROW((void)analyse_pairs(m, 1.5), std::invalid_argument);
}

TEST(PairwiseAnalysis, TooFewLinksAreNotJudged) {
  auto two = uniform(2, 10);
  const auto f = analyse_pairs(two);
  EXPECT_FALSE(f.judged);
  EXPECT_EQ(f.links, 1);
  EXPECT_DOUBLE_EQ(f.median, 10);
  EXPECT_NE(f.reason.find("1 link: too few"), std::string::npos) << f.reason;
  EXPECT_EQ(describe(f, labels), f.reason);
  const auto none = analyse_pairs(uniform(4, std::nan("")));
  EXPECT_FALSE(none.judged);
  EXPECT_EQ(none.reason, "no link was measured");
  EXPECT_THROW((void)analyse_pairs({{1, 2}, {3}}), std::invalid_argument);
  EXPECT_THROW((void)analyse_pairs(std::vector<size_matrix>{}), std::invalid_argument);
  EXPECT_THROW((void)analyse_pairs({size_matrix{1, uniform(3, 1)}, size_matrix{2, uniform(4, 1)}}),
               std::invalid_argument);
}

TEST(PairwiseAnalysis, ALinkLowAtAnySizeIsASuspectAndLowAtEverySizeAgainIsNamed) {
  // a <-> d slow at 16 MiB only (0.2 x), fine at 1 MiB (0.9 x): a suspect, with its lowest ratio.
  auto small = uniform(4, 2), large = uniform(4, 10);
  set_link(small, 0, 3, 1.8);
  set_link(large, 0, 3, 2);
  const auto f = analyse_pairs({{16 << 20, large}, {1 << 20, small}});  // any order
  EXPECT_EQ(f.judged_bytes, (std::vector<std::size_t>{1 << 20, 16 << 20}));
  EXPECT_EQ(f.references, (std::vector<double>{2, 10}));
  EXPECT_DOUBLE_EQ(f.median, 10) << "the reference at the largest size";
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_DOUBLE_EQ(f.suspects[0].ratio, 0.2);
  EXPECT_EQ(f.suspects[0].bytes, std::size_t{16} << 20);
  // Measured again with its controls a <-> b and b <-> d: slow at 16 MiB again but not at
  // 1 MiB: not named; slow at both: named, with its higher ratio.
  auto small_again = uniform(4, std::nan("")), large_again = uniform(4, std::nan(""));
  for (const auto& [a, b] : control_links(f)) {
    set_link(small_again, a, b, 2);
    set_link(large_again, a, b, 10);
  }
  set_link(small_again, 0, 3, 1.6);
  set_link(large_again, 0, 3, 3);
  const auto once = confirm_suspects(f, {{1 << 20, small_again}, {16 << 20, large_again}});
  EXPECT_TRUE(once.low.empty());
  EXPECT_DOUBLE_EQ(once.suspects[0].confirm_ratio, 0.8);
  set_link(small_again, 0, 3, 0.7);
  const auto both = confirm_suspects(f, {{1 << 20, small_again}, {16 << 20, large_again}});
  ASSERT_EQ(both.bad_links.size(), 1u);
  EXPECT_DOUBLE_EQ(both.bad_links[0].confirm_ratio, 0.35);
  EXPECT_DOUBLE_EQ(both.bad_links[0].confirm_value, 0.7);
}

TEST(PairwiseAnalysis, ASuspectFastWhenMeasuredAgainIsNotNamed) {
  // The sweep caught link b <-> c in a stall (0.3 x); measured again it is at 0.95 x its
  // controls b <-> d and c <-> d.
  auto m = uniform(4, 10);
  set_link(m, 1, 2, 3);
  const auto suspects = analyse_pairs({{1 << 20, m}});
  ASSERT_EQ(suspects.suspects.size(), 1u);
  ASSERT_EQ(suspects.bad_links.size(), 1u) << "named until confirmed or not";
  EXPECT_EQ(control_links(suspects), (std::vector<std::pair<int, int>>{{1, 3}, {2, 3}}));
  auto again = uniform(4, std::nan(""));
  set_link(again, 1, 2, 9.5);
  set_link(again, 1, 3, 10);
  set_link(again, 2, 3, 10);
  const auto f = confirm_suspects(suspects, {{1 << 20, again}});
  EXPECT_TRUE(f.confirmation);
  EXPECT_TRUE(f.low.empty());
  EXPECT_TRUE(f.bad_links.empty());
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_FALSE(f.suspects[0].confirmed);
  EXPECT_DOUBLE_EQ(f.suspects[0].confirm_ratio, 0.95);
  EXPECT_EQ(describe(f, labels),
            "no link below 0.5 x the reference 10 GB/s (6 links); not slow again when measured again: b <-> c (0.30 x, "
            "0.95 x measured again)");
  const auto j = to_json(f, labels);
  EXPECT_EQ(j.at("suspects").size(), 1u);
  EXPECT_EQ(j.at("low_links").size(), 0u);
  EXPECT_FALSE(j.at("suspects")[0].at("confirmed").get<bool>());
  EXPECT_EQ(j.at("confirm_references_gbs"), json::array({10.0}));
}

TEST(PairwiseAnalysis, ASuspectIsMeasuredAgainstControlsMeasuredWithIt) {
  auto m = uniform(4, 10);
  set_link(m, 0, 3, 3);
  const auto suspects = analyse_pairs({{1 << 20, m}});
  EXPECT_EQ(control_links(suspects), (std::vector<std::pair<int, int>>{{0, 1}, {1, 3}}));
  // The machine got busier: controls at 5, the suspect at 1.75 (0.35 x them): slow again,
  // although 1.75 is not the 0.35 x of the sweep's reference 10 it stands for.
  auto again = uniform(4, std::nan(""));
  set_link(again, 0, 3, 1.75);
  set_link(again, 0, 1, 5);
  set_link(again, 1, 3, 5);
  auto f = confirm_suspects(suspects, {{1 << 20, again}});
  ASSERT_EQ(f.bad_links.size(), 1u);
  EXPECT_TRUE(f.bad_links[0].confirmed);
  EXPECT_DOUBLE_EQ(f.bad_links[0].ratio, 0.3);
  EXPECT_DOUBLE_EQ(f.bad_links[0].confirm_value, 1.75);
  EXPECT_DOUBLE_EQ(f.bad_links[0].confirm_ratio, 0.35);
  EXPECT_EQ(f.confirm_references, (std::vector<double>{5}));
  EXPECT_NE(describe(f, labels).find("link a <-> d (3 GB/s at 1 MiB, 0.30 x, 0.35 x measured again"), std::string::npos)
      << describe(f, labels);
  // Busier still, but the suspect kept its pace while the controls lost theirs: 3 against 5 is
  // 0.6 x, not slow again.
  set_link(again, 0, 3, 3);
  f = confirm_suspects(suspects, {{1 << 20, again}});
  EXPECT_TRUE(f.bad_links.empty());
  // Without controls measured again, the sweep's reference stands.
  auto alone = uniform(4, std::nan(""));
  set_link(alone, 0, 3, 3.5);
  f = confirm_suspects(suspects, {{1 << 20, alone}});
  ASSERT_EQ(f.bad_links.size(), 1u);
  EXPECT_DOUBLE_EQ(f.bad_links[0].confirm_ratio, 0.35);
}

TEST(PairwiseAnalysis, ASuspectNotMeasuredAgainIsNotNamed) {
  auto m = uniform(4, 10);
  for (int i = 0; i < 4; ++i) {
    if (i != 1) set_link(m, 1, i, 2);
  }
  const auto f = confirm_suspects(analyse_pairs(m), {});
  EXPECT_EQ(f.suspects.size(), 3u);
  EXPECT_TRUE(f.low.empty());
  EXPECT_TRUE(f.nodes.empty());
  EXPECT_NE(describe(f, labels).find("(0.20 x, not measured again)"), std::string::npos) << describe(f, labels);
}

TEST(PairwiseAnalysis, ASlowNodeConfirmedIsTheNode) {
  auto m = uniform(4, 10);
  for (int i = 0; i < 4; ++i) {
    if (i != 1) set_link(m, 1, i, 3);
  }
  const auto suspects = analyse_pairs({{16 << 20, m}});
  // Its peers' links control it: a <-> c, c <-> d, a <-> d.
  EXPECT_EQ(control_links(suspects), (std::vector<std::pair<int, int>>{{0, 2}, {2, 3}, {0, 3}}));
  auto again = uniform(4, std::nan(""));
  for (int i = 0; i < 4; ++i) {
    if (i != 1) set_link(again, 1, i, 3.3);
  }
  for (const auto& [a, b] : control_links(suspects)) set_link(again, a, b, 9);
  const auto f = confirm_suspects(suspects, {{16 << 20, again}});
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].node, 1);
  EXPECT_TRUE(f.bad_links.empty());
  EXPECT_NE(describe(f, labels).find("node b (3 of its 3 links below 0.5 x the reference 10 GB/s, slow again"),
            std::string::npos)
      << describe(f, labels);
}

TEST(PairwiseAnalysis, ASlowNodesLinkMeasuredHighIsMeasuredAgainWithItsOthers) {
  // Node c's links at 0.24, 0.39 and 0.75 x the reference: the third is no suspect alone (0.7 x
  // or above), but two of c's three links are below that, so all three are measured again.
  auto m = uniform(4, 10);
  set_link(m, 2, 1, 2.4);
  set_link(m, 2, 0, 3.9);
  set_link(m, 2, 3, 7.5);
  const auto f = analyse_pairs({{16 << 20, m}});
  EXPECT_EQ(f.suspect_nodes, std::vector<int>{2});
  ASSERT_EQ(f.suspects.size(), 3u);
  EXPECT_EQ(f.low.size(), 2u) << "until measured again, only those below the factor";
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].low_links, 2);
  auto again = uniform(4, std::nan(""));
  set_link(again, 2, 0, 3);
  set_link(again, 2, 1, 3.2);
  set_link(again, 2, 3, 3.4);
  for (const auto& [a, b] : control_links(f)) set_link(again, a, b, 10);
  const auto confirmed = confirm_suspects(f, {{16 << 20, again}});
  ASSERT_EQ(confirmed.nodes.size(), 1u) << describe(confirmed, labels);
  EXPECT_EQ(confirmed.nodes[0].node, 2);
  EXPECT_EQ(confirmed.nodes[0].low_links, 3);
  EXPECT_TRUE(confirmed.bad_links.empty());
  EXPECT_EQ(to_json(confirmed, labels).at("suspect_nodes"), json::array({"c"}));
  // A node with one slow link of three is no suspect node.
  auto one = uniform(4, 10);
  set_link(one, 2, 1, 2);
  EXPECT_TRUE(analyse_pairs(one).suspect_nodes.empty());
  EXPECT_EQ(analyse_pairs(one).suspects.size(), 1u);
}

TEST(PairwiseAnalysis, WhenEveryLinkIsASuspectTheLinksMeasuredAgainSetTheReference) {
  // Node c slow, and a <-> d slowed by load in the sweep: a and d have 2 of 3 links below the
  // factor, so every link is a suspect and none is left as a control.
  auto m = uniform(4, 10);
  for (const int i : {0, 1, 3}) set_link(m, 2, i, 2);
  set_link(m, 0, 3, 4);
  const auto f = analyse_pairs({{16 << 20, m}});
  EXPECT_EQ(f.suspect_nodes, (std::vector<int>{0, 2, 3}));
  ASSERT_EQ(f.suspects.size(), 6u);
  EXPECT_TRUE(control_links(f).empty());
  // Measured again the whole machine is busier (healthy links at 4, a third of that for c's):
  // the upper quartile of the links measured again, 4, names node c and nothing else, where the
  // sweep's reference 10 would have named every node.
  auto again = uniform(4, 4);
  for (const int i : {0, 1, 3}) set_link(again, 2, i, 4.0 / 3);
  const auto confirmed = confirm_suspects(f, {{16 << 20, again}});
  EXPECT_EQ(confirmed.confirm_references, std::vector<double>{4});
  ASSERT_EQ(confirmed.nodes.size(), 1u) << describe(confirmed, labels);
  EXPECT_EQ(confirmed.nodes[0].node, 2);
  EXPECT_TRUE(confirmed.bad_links.empty()) << describe(confirmed, labels);
}

// A loaded machine: every direction of every link up to 45 % below its capability (the fastest
// of its exchanges on busy cores), the reference wherever the median falls. Nothing is named
// before measuring again; up to 25 % below, nothing is even a suspect.
TEST(PairwiseAnalysis, NoisyHealthyLinksRaiseNoSuspect) {
  std::mt19937 rng(20261128);
  for (int run = 0; run < 2000; ++run) {
    const int n = 3 + run % 6;
    const auto f = analyse_pairs({{1 << 20, noisy(rng, n, 5, 0.55)}, {16 << 20, noisy(rng, n, 10, 0.55)}});
    ASSERT_TRUE(f.judged);
    ASSERT_TRUE(f.low.empty()) << "run " << run << ": " << describe(f, labels);
    const auto quiet = analyse_pairs({{1 << 20, noisy(rng, n, 5, 0.75)}, {16 << 20, noisy(rng, n, 10, 0.75)}});
    ASSERT_TRUE(quiet.suspects.empty()) << "run " << run << ": " << describe(quiet, labels);
  }
}

// A node or a link 3x slower amid noise of up to 25 %: named every time, and nothing else.
TEST(PairwiseAnalysis, ThreeTimesSlowerAmidNoiseIsNamed) {
  std::mt19937 rng(43);
  for (int run = 0; run < 2000; ++run) {
    const int n = 4 + run % 5;
    const int node = run % n;
    const auto nodes =
        analyse_pairs({{1 << 20, noisy(rng, n, 5, 0.75, node)}, {16 << 20, noisy(rng, n, 10, 0.75, node)}});
    ASSERT_EQ(nodes.nodes.size(), 1u) << "run " << run << ": " << describe(nodes, labels);
    EXPECT_EQ(nodes.nodes[0].node, node);
    ASSERT_TRUE(nodes.bad_links.empty()) << describe(nodes, labels);
    const std::pair<int, int> link{run % (n - 1), n - 1};
    const auto links =
        analyse_pairs({{1 << 20, noisy(rng, n, 5, 0.75, -1, link)}, {16 << 20, noisy(rng, n, 10, 0.75, -1, link)}});
    ASSERT_TRUE(links.nodes.empty()) << "run " << run << ": " << describe(links, labels);
    ASSERT_EQ(links.bad_links.size(), 1u) << describe(links, labels);
    EXPECT_EQ(links.bad_links[0].a, link.first);
    EXPECT_EQ(links.bad_links[0].b, link.second);
  }
  // With 3 nodes a slow link is named too.
  for (int run = 0; run < 200; ++run) {
    const auto f = analyse_pairs({{16 << 20, noisy(rng, 3, 10, 0.75, -1, {0, 2})}});
    ASSERT_EQ(f.bad_links.size(), 1u) << describe(f, labels);
  }
}

TEST(PairwiseAnalysis, JsonNamesByLabel) {
  auto m = uniform(4, 10);
  set_link(m, 2, 3, 1);
  const auto j = to_json(analyse_pairs({{1 << 20, m}}), labels);
  EXPECT_EQ(j.at("bad_links").size(), 1u);
  EXPECT_EQ(j.at("bad_links")[0].at("a"), "c");
  EXPECT_EQ(j.at("bad_links")[0].at("b"), "d");
  EXPECT_EQ(j.at("bad_links")[0].at("bytes"), 1 << 20);
  EXPECT_TRUE(j.at("bad_links")[0].at("confirm_ratio").is_null());
  EXPECT_EQ(j.at("bad_nodes").size(), 0u);
  EXPECT_DOUBLE_EQ(j.at("median_gbs").get<double>(), 10);
  EXPECT_EQ(j.at("judged_bytes"), json::array({1 << 20}));
  EXPECT_TRUE(j.at("judged").get<bool>());
  EXPECT_FALSE(j.at("confirmation").get<bool>());
}

}  // namespace
}  // namespace ironbench::comm
