// The suspects' second measurement over several rounds: a suspect clearly low is named at once,
// one clearly healthy cleared at once, one in between (or not measured) measured again with its
// exchanges pooled, and not named when still in between after the last round; a decision, once
// taken, stands; the other links at the ends of a suspect found low are measured again too.
#include <gtest/gtest.h>

#include <cmath>

#include "comm/pairwise_analysis.hpp"

// Its helpers are named apart from pairwise_analysis_test.cpp's (one translation unit in a
// unity build).
namespace ironbench::comm::confirm_test {
namespace {

using matrix = std::vector<std::vector<double>>;
using link_list = std::vector<std::pair<int, int>>;

const std::vector<std::string> labels{"a", "b", "c", "d"};
constexpr std::size_t judged = std::size_t{16} << 20;

matrix filled(double v) {
  matrix m(4, std::vector<double>(4, v));
  for (std::size_t i = 0; i < 4; ++i) m[i][i] = std::nan("");
  return m;
}

void set_link(matrix& m, int a, int b, double v) {
  m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = v;
  m[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = v;
}

// The sweep: a <-> d at 0.3 x the others (10 GB/s), a suspect with controls a <-> b and b <-> d.
pair_findings link_ad_suspect() {
  auto m = filled(10);
  set_link(m, 0, 3, 3);
  return analyse_pairs({{judged, m}});
}

// The links measured again: a <-> d at `suspect`, its controls at `controls`.
std::vector<size_matrix> again(double suspect, double controls) {
  auto m = filled(std::nan(""));
  set_link(m, 0, 3, suspect);
  set_link(m, 0, 1, controls);
  set_link(m, 1, 3, controls);
  return {{judged, m}};
}

TEST(PairwiseConfirm, TheMarginsAreAroundTheFactor) {
  EXPECT_LT(pair_sure_low, 1.0);
  EXPECT_GT(pair_sure_high, 1.0);
  EXPECT_GE(pair_confirm_rounds, 2);
}

TEST(PairwiseConfirm, ASuspectBetweenTheMarginsIsMeasuredAgainAndNamedWhenConfirmed) {
  auto f = link_ad_suspect();
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_EQ(links_to_measure_again(f), (link_list{{0, 3}, {0, 1}, {1, 3}}));
  // Measured again at 0.6 x its controls: neither low (below 0.4) nor cleared (0.7 or above).
  f = confirm_suspects(f, again(6, 10), false);
  ASSERT_EQ(f.suspects.size(), 1u);
  EXPECT_TRUE(f.suspects[0].undecided);
  EXPECT_FALSE(f.suspects[0].confirmed);
  EXPECT_DOUBLE_EQ(f.suspects[0].confirm_ratio, 0.6);
  EXPECT_TRUE(f.low.empty()) << "not named while undecided";
  EXPECT_TRUE(any_undecided(f));
  EXPECT_EQ(links_to_measure_again(f, true), (link_list{{0, 3}, {0, 1}, {1, 3}}));
  // Pooled with a second measurement: the controls' fastest exchanges now at 16, the suspect's
  // still at 6: 0.375 x, low, named as the link.
  f = confirm_suspects(f, again(6, 16), false);
  ASSERT_EQ(f.bad_links.size(), 1u) << describe(f, labels);
  EXPECT_TRUE(f.bad_links[0].confirmed);
  EXPECT_DOUBLE_EQ(f.bad_links[0].confirm_ratio, 0.375);
  EXPECT_NE(describe(f, labels).find("link a <-> d"), std::string::npos) << describe(f, labels);
  // Its ends' other links join the suspects: a <-> b and b <-> d, measured as its controls, are
  // cleared; a <-> c and c <-> d are measured next, with the cleared ones as controls.
  ASSERT_EQ(f.suspects.size(), 5u);
  for (std::size_t i = 1; i < 5; ++i) EXPECT_TRUE(f.suspects[i].neighbour);
  EXPECT_TRUE(any_undecided(f));
  EXPECT_EQ(links_to_measure_again(f, true), (link_list{{0, 2}, {0, 1}, {1, 2}, {2, 3}, {1, 3}}));
  // Decided: a later call with other numbers leaves it named.
  f = confirm_suspects(f, again(9, 10));
  ASSERT_EQ(f.bad_links.size(), 1u);
  EXPECT_DOUBLE_EQ(f.bad_links[0].confirm_ratio, 0.375);
  const auto j = to_json(f, labels);
  EXPECT_FALSE(j.at("suspects")[0].at("undecided").get<bool>());
  EXPECT_TRUE(j.at("suspects")[0].at("confirmed").get<bool>());
}

TEST(PairwiseConfirm, ASuspectBetweenTheMarginsHealthyWhenMeasuredAgainIsNotNamed) {
  auto f = confirm_suspects(link_ad_suspect(), again(6, 10), false);
  ASSERT_TRUE(f.suspects[0].undecided);
  // Its own exchanges were slowed the first time: pooled, its fastest is 9.5 against 10.
  f = confirm_suspects(f, again(9.5, 10), false);
  EXPECT_FALSE(f.suspects[0].undecided);
  EXPECT_FALSE(f.suspects[0].confirmed);
  EXPECT_DOUBLE_EQ(f.suspects[0].confirm_ratio, 0.95);
  EXPECT_TRUE(f.low.empty());
  EXPECT_TRUE(f.bad_links.empty());
  EXPECT_NE(describe(f, labels).find("not slow again when measured again: a <-> d (0.30 x, 0.95 x measured again)"),
            std::string::npos)
      << describe(f, labels);
  // Cleared stands, whatever a later call's numbers.
  f = confirm_suspects(f, again(3, 10));
  EXPECT_TRUE(f.low.empty());
}

TEST(PairwiseConfirm, AfterTheLastRoundASuspectStillBetweenTheMarginsIsNotNamed) {
  const auto first = confirm_suspects(link_ad_suspect(), again(6, 10), false);
  // Still between the margins when no round is left, even below the factor: not named.
  const auto between = confirm_suspects(first, again(6, 13));
  EXPECT_TRUE(between.low.empty()) << describe(between, labels);
  EXPECT_NEAR(between.suspects[0].confirm_ratio, 6.0 / 13, 1e-12);
  EXPECT_FALSE(between.suspects[0].undecided);
  EXPECT_FALSE(between.suspects[0].confirmed);
  // Below the lower margin in the last round: named.
  const auto low = confirm_suspects(first, again(6, 16));
  ASSERT_EQ(low.bad_links.size(), 1u) << describe(low, labels);
  EXPECT_FALSE(low.bad_links[0].undecided);
}

TEST(PairwiseConfirm, ASuspectClearlyLowOrHealthyIsDecidedInTheFirstRound) {
  const auto low = confirm_suspects(link_ad_suspect(), again(3.5, 10), false);
  EXPECT_FALSE(low.suspects[0].undecided);
  EXPECT_EQ(low.bad_links.size(), 1u);
  // Its ends' other links not yet measured (a <-> c, c <-> d) are measured next.
  EXPECT_EQ(links_to_measure_again(low, true), (link_list{{0, 2}, {0, 1}, {1, 2}, {2, 3}, {1, 3}}));
  const auto healthy = confirm_suspects(link_ad_suspect(), again(7.5, 10), false);
  EXPECT_FALSE(any_undecided(healthy));
  EXPECT_TRUE(healthy.low.empty());
}

TEST(PairwiseConfirm, ASuspectNotMeasuredIsMeasuredAgainWhileRoundsAreLeft) {
  auto f = confirm_suspects(link_ad_suspect(), {}, false);
  EXPECT_TRUE(f.suspects[0].undecided);
  EXPECT_TRUE(std::isnan(f.suspects[0].confirm_ratio));
  EXPECT_EQ(links_to_measure_again(f, true), (link_list{{0, 3}, {0, 1}, {1, 3}}));
  f = confirm_suspects(f, {});
  EXPECT_FALSE(f.suspects[0].undecided);
  EXPECT_TRUE(f.low.empty()) << "never measured again: not named";
}

TEST(PairwiseConfirm, OnlyTheUndecidedAreMeasuredAgainWithControlsThatAreNoSuspects) {
  // Node b slow (its links at 0.29 to 0.31): three suspects, controlled by a <-> c, c <-> d, a <-> d.
  auto m = filled(10);
  set_link(m, 0, 1, 2.9);
  set_link(m, 1, 2, 3);
  set_link(m, 1, 3, 3.1);
  auto f = analyse_pairs({{judged, m}});
  ASSERT_EQ(f.suspects.size(), 3u);
  EXPECT_EQ(links_to_measure_again(f), (link_list{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}, {1, 3}}));
  // Measured again: a <-> b and b <-> c low, b <-> d between the margins.
  auto second = filled(10);
  set_link(second, 0, 1, 3);
  set_link(second, 1, 2, 3);
  set_link(second, 1, 3, 6);
  f = confirm_suspects(f, {{judged, second}}, false);
  ASSERT_EQ(f.low.size(), 2u);
  // b <-> d alone, with controls at its ends that are no suspects (not a <-> b nor b <-> c).
  EXPECT_EQ(links_to_measure_again(f, true), (link_list{{1, 3}, {0, 3}}));
  set_link(second, 1, 3, 3.5);
  f = confirm_suspects(f, {{judged, second}});
  ASSERT_EQ(f.nodes.size(), 1u) << describe(f, labels);
  EXPECT_EQ(f.nodes[0].node, 1);
  EXPECT_EQ(f.nodes[0].low_links, 3);
}

TEST(PairwiseConfirm, ASlowNodeFoundOnOneLinkIsNamedOnceItsOtherLinksAreMeasuredAgain) {
  // Node c slow, but in the sweep only c <-> d came out low; c's other links (0.75 x and 0.8 x)
  // are no suspects.
  auto m = filled(10);
  set_link(m, 2, 3, 3);
  set_link(m, 0, 2, 7.5);
  set_link(m, 1, 2, 8);
  auto f = analyse_pairs({{judged, m}});
  ASSERT_EQ(f.suspects.size(), 1u);
  // Measured again, its control at c's end (a <-> c) is slow too, and pulls the reference down
  // (the upper quartile of 3, 3.2 and 10): both are undecided, the control now a suspect.
  auto second = filled(std::nan(""));
  set_link(second, 2, 3, 3);
  for (const auto& [a, b] : control_links(f)) set_link(second, a, b, a == 2 || b == 2 ? 3.2 : 10);
  f = confirm_suspects(f, {{judged, second}}, false);
  EXPECT_TRUE(f.low.empty()) << describe(f, labels);
  ASSERT_EQ(f.suspects.size(), 2u);
  EXPECT_TRUE(f.suspects[1].neighbour);
  EXPECT_EQ(f.suspects[1].a, 0);
  EXPECT_EQ(f.suspects[1].b, 2);
  EXPECT_TRUE(f.suspects[0].undecided && f.suspects[1].undecided);
  // Measured again with their controls, c's links all come out slow against the healthy ones:
  // node c, and no link.
  for (const auto& [a, b] : links_to_measure_again(f, true)) {
    set_link(second, a, b, a == 2 || b == 2 ? 3.2 : 10);
  }
  f = confirm_suspects(f, {{judged, second}});
  ASSERT_EQ(f.nodes.size(), 1u) << describe(f, labels);
  EXPECT_EQ(f.nodes[0].node, 2);
  EXPECT_EQ(f.nodes[0].low_links, 3);
  EXPECT_TRUE(f.bad_links.empty()) << describe(f, labels);
  // A slow link alone: its ends' other links measured again are healthy, the link is named.
  auto link = confirm_suspects(link_ad_suspect(), again(3, 10), false);
  auto healthy = filled(10);
  set_link(healthy, 0, 3, 3);
  link = confirm_suspects(link, {{judged, healthy}});
  EXPECT_TRUE(link.nodes.empty()) << describe(link, labels);
  ASSERT_EQ(link.bad_links.size(), 1u) << describe(link, labels);
  EXPECT_EQ(link.bad_links[0].a, 0);
  EXPECT_EQ(link.bad_links[0].b, 3);
  const auto j = to_json(link, labels);
  EXPECT_TRUE(j.at("suspects")[1].at("neighbour").get<bool>());
}

TEST(PairwiseConfirm, ASlowNodesControlsSpreadOverItsPeers) {
  // Node c slow among 4: its peers' three links control it, not only those of node a.
  auto m = filled(10);
  set_link(m, 2, 1, 2.9);
  set_link(m, 2, 3, 3);
  set_link(m, 2, 0, 3.1);
  const auto f = analyse_pairs({{judged, m}});
  EXPECT_EQ(control_links(f), (link_list{{1, 3}, {0, 3}, {0, 1}}));
}

}  // namespace
}  // namespace ironbench::comm::confirm_test
