// Pairwise findings from a matrix: the median link, low links, and a node most of whose links
// are low named as the node, against single low links named as links.
#include "comm/pairwise_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ironbench::comm {
namespace {

using matrix = std::vector<std::vector<double>>;

// n x n of `good` (diagonal NaN), with the links in `slow` (both directions) at `bad`.
matrix uniform(int n, double good) {
  matrix m(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), good));
  for (int i = 0; i < n; ++i) m[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = std::nan("");
  return m;
}

void set_link(matrix& m, int a, int b, double v) {
  m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = v;
  m[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = v;
}

const std::vector<std::string> labels = {"a", "b", "c", "d", "e", "f", "g", "h"};

TEST(PairwiseAnalysis, AllEqualNamesNothing) {
  const auto f = analyse_pairs(uniform(4, 10));
  EXPECT_TRUE(f.judged);
  EXPECT_EQ(f.links, 6);
  EXPECT_DOUBLE_EQ(f.median, 10);
  EXPECT_DOUBLE_EQ(f.threshold, 8);
  EXPECT_TRUE(f.low.empty());
  EXPECT_TRUE(f.nodes.empty());
  EXPECT_TRUE(f.bad_links.empty());
  EXPECT_EQ(describe(f, labels), "no link below 0.8 x the median 10 GB/s (6 links)");
}

TEST(PairwiseAnalysis, ASlowNodeIsTheNodeNotItsLinks) {
  for (const int n : {4, 5, 8}) {
    auto m = uniform(n, 10);
    for (int i = 0; i < n; ++i) {
      if (i != 2) set_link(m, 2, i, 1);
    }
    const auto f = analyse_pairs(m);
    ASSERT_TRUE(f.judged);
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
    set_link(m, 0, n - 1, 2);
    const auto f = analyse_pairs(m);
    ASSERT_TRUE(f.judged);
    EXPECT_TRUE(f.nodes.empty()) << n;
    ASSERT_EQ(f.bad_links.size(), 1u);
    EXPECT_EQ(f.bad_links[0].a, 0);
    EXPECT_EQ(f.bad_links[0].b, n - 1);
    EXPECT_DOUBLE_EQ(f.bad_links[0].value, 2);
    EXPECT_DOUBLE_EQ(f.bad_links[0].ratio, 0.2);
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

TEST(PairwiseAnalysis, MostLinksLowNamesTheNode) {
  // 8 nodes: 7 links each; 6 low (three quarters, rounded up) names it, 5 does not.
  EXPECT_EQ(low_links_naming_a_node(7), 6);
  EXPECT_EQ(low_links_naming_a_node(3), 3);
  EXPECT_EQ(low_links_naming_a_node(2), 2);
  EXPECT_EQ(low_links_naming_a_node(1), 0);
  auto six = uniform(8, 10);
  for (int i = 1; i <= 6; ++i) set_link(six, 0, i, 1);
  EXPECT_EQ(analyse_pairs(six).nodes.size(), 1u);
  auto five = uniform(8, 10);
  for (int i = 1; i <= 5; ++i) set_link(five, 0, i, 1);
  const auto f = analyse_pairs(five);
  EXPECT_TRUE(f.nodes.empty());
  EXPECT_EQ(f.bad_links.size(), 5u);
}

TEST(PairwiseAnalysis, TheFactorDecides) {
  auto m = uniform(4, 10);
  set_link(m, 1, 2, 7.5);
  EXPECT_EQ(analyse_pairs(m, 0.8).bad_links.size(), 1u);
  EXPECT_TRUE(analyse_pairs(m, 0.7).bad_links.empty());
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
}

TEST(PairwiseAnalysis, JsonNamesByLabel) {
  auto m = uniform(4, 10);
  set_link(m, 2, 3, 1);
  const auto j = to_json(analyse_pairs(m), labels);
  EXPECT_EQ(j.at("bad_links").size(), 1u);
  EXPECT_EQ(j.at("bad_links")[0].at("a"), "c");
  EXPECT_EQ(j.at("bad_links")[0].at("b"), "d");
  EXPECT_EQ(j.at("bad_nodes").size(), 0u);
  EXPECT_DOUBLE_EQ(j.at("median_gbs").get<double>(), 10);
  EXPECT_TRUE(j.at("judged").get<bool>());
}

}  // namespace
}  // namespace ironbench::comm
