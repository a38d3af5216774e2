// validate's pairwise check from a sweep's result: FAIL naming the node at fault, WARN naming a
// slow link, PASS, SKIP when not judged, FAIL on a wrong byte.
#include "validate/pairwise_check.hpp"

#include <gtest/gtest.h>

namespace ironbench::validate {
namespace {

// 4 nodes a..d, every link 10 GB/s both ways but those in `slow` (a, b) at 1.
comm::pairwise_result sweep(const std::vector<std::pair<int, int>>& slow) {
  comm::pairwise_result r;
  r.participants = comm::select_participants(comm::pair_mode::nodes, {"a", "b", "c", "d"});
  r.sizes = {1024};
  std::vector<std::vector<double>> m(4, std::vector<double>(4, 10));
  for (const auto& [a, b] : slow) m[a][b] = m[b][a] = 1;
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) r.pairs.push_back({a, b, 1024, m[a][b], m[b][a], 2 * m[a][b], 0});
  }
  r.findings = comm::analyse_pairs(comm::pair_matrix(r, 1024, "one_way"));
  return r;
}

TEST(ValidatePairwise, VerdictsNameTheNodeOrTheLink) {
  const auto node = pairwise_check_row(sweep({{1, 0}, {1, 2}, {1, 3}}));
  EXPECT_EQ(node.result, verdict::fail);
  EXPECT_NE(node.rule.find("the node at fault: node b (3 of its 3 links"), std::string::npos) << node.rule;
  EXPECT_EQ(node.check, "pairwise bandwidth between 4 nodes");
  EXPECT_EQ(node.unit, "GB/s");
  ASSERT_TRUE(node.measured.has_value());

  const auto link = pairwise_check_row(sweep({{0, 3}}));
  EXPECT_EQ(link.result, verdict::warn);
  EXPECT_NE(link.rule.find("a slow link: link a <-> d"), std::string::npos) << link.rule;
  EXPECT_DOUBLE_EQ(*link.measured, 10);

  const auto fine = pairwise_check_row(sweep({}));
  EXPECT_EQ(fine.result, verdict::pass);
  EXPECT_NE(fine.rule.find("no link below 0.5 x the reference"), std::string::npos);

  auto wrong = sweep({});
  wrong.wrong_bytes = 5;
  EXPECT_EQ(pairwise_check_row(wrong).result, verdict::fail);
}

TEST(ValidatePairwise, TwoNodesAreNotJudged) {
  comm::pairwise_result r;
  r.participants = comm::select_participants(comm::pair_mode::nodes, {"a", "b"});
  r.sizes = {1024};
  r.pairs.push_back({0, 1, 1024, 5, 5, 10, 0});
  r.findings = comm::analyse_pairs(comm::pair_matrix(r, 1024, "one_way"));
  const auto row = pairwise_check_row(r);
  EXPECT_EQ(row.result, verdict::skip);
  EXPECT_NE(row.rule.find("too few to compare"), std::string::npos) << row.rule;
}

}  // namespace
}  // namespace ironbench::validate
