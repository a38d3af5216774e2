#include "comm/hang_culprits.hpp"

#include <gtest/gtest.h>

namespace ironbench::comm {
namespace {

using link = rank_progress::link;

rank_progress at(int rank, const std::string& host, std::uint64_t operation, link state = link::reporting) {
  rank_progress r;
  r.rank = rank;
  r.host = host;
  r.operation = operation;
  r.name = operation == 0 ? "" : "op " + std::to_string(operation);
  r.state = state;
  return r;
}

std::vector<int> named(const hang_verdict& v) {
  std::vector<int> ranks;
  for (const auto& c : v.culprits) ranks.push_back(c.rank);
  return ranks;
}

TEST(HangCulprits, NamesTheRankBehindTheFurthest) {
  const auto v = judge_hang({at(0, "a", 5), at(1, "a", 5), at(2, "b", 4), at(3, "b", 5)});
  EXPECT_EQ(v.furthest, 5u);
  EXPECT_EQ(v.furthest_name, "op 5");
  ASSERT_EQ(named(v), std::vector<int>{2});
  EXPECT_EQ(v.culprits[0].host, "b");
  EXPECT_NE(v.culprits[0].why.find("never entered operation #5 (op 5)"), std::string::npos) << v.culprits[0].why;
  EXPECT_NE(v.culprits[0].why.find("#4 (op 4)"), std::string::npos);
  const auto line = hang_line(v, 3);
  EXPECT_NE(line.find("rank 2 (host b)"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(HangCulprits, RankZeroBehindIsNamedToo) {
  const auto v = judge_hang({at(0, "a", 0), at(1, "a", 1), at(2, "b", 1), at(3, "b", 1)});
  EXPECT_EQ(named(v), std::vector<int>{0});
  EXPECT_NE(v.culprits[0].why.find("none (start-up)"), std::string::npos) << v.culprits[0].why;
}

TEST(HangCulprits, SeveralBehindInRankOrder) {
  const auto v = judge_hang({at(3, "b", 2), at(0, "a", 7), at(1, "a", 3), at(2, "b", 7)});
  EXPECT_EQ(named(v), (std::vector<int>{1, 3}));
}

TEST(HangCulprits, DroppedAndNeverConnectedAreCulpritsFinishedAreNot) {
  const auto v = judge_hang({at(0, "a", 4), at(1, "a", 4, link::dropped), at(2, "b", 0, link::never_connected),
                             at(3, "b", 9, link::finished)});
  // A finished rank counts for the furthest operation, and is no culprit.
  EXPECT_EQ(v.furthest, 9u);
  EXPECT_EQ(named(v), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(v.culprits[1].state, link::dropped);
  EXPECT_NE(v.culprits[1].why.find("died"), std::string::npos);
  EXPECT_NE(v.culprits[2].why.find("never reached"), std::string::npos);
}

TEST(HangCulprits, EveryRankInTheOperationNamesNone) {
  const auto v = judge_hang({at(0, "a", 3), at(1, "a", 3), at(2, "b", 3)});
  EXPECT_TRUE(v.culprits.empty());
  EXPECT_NE(hang_line(v, 3).find("no rank is missing"), std::string::npos);
}

TEST(HangCulprits, UnmonitoredRanksGetNoVerdict) {
  const auto v = judge_hang({at(0, "a", 3), at(1, "a", 0, link::unmonitored), at(2, "b", 2)});
  EXPECT_EQ(named(v), std::vector<int>{2});
  EXPECT_EQ(v.unmonitored, std::vector<int>{1});
  EXPECT_NE(hang_line(v, 3).find("no verdict on rank 1"), std::string::npos);
}

TEST(HangCulprits, JsonHoldsTheList) {
  const auto j = hang_json(judge_hang({at(0, "a", 2), at(1, "b", 1)}), 3);
  ASSERT_EQ(j["culprits"].size(), 1u);
  EXPECT_EQ(j["culprits"][0]["rank"], 1);
  EXPECT_EQ(j["culprits"][0]["host"], "b");
  EXPECT_EQ(j["culprits"][0]["last_operation"], 1);
  EXPECT_EQ(j["furthest_operation"]["number"], 2);
  EXPECT_EQ(j["timeout_s"], 3.0);
  EXPECT_TRUE(j["summary"].is_string());
}

TEST(ProgressWire, RoundTrips) {
  progress_message hello;
  hello.what = progress_message::kind::hello;
  hello.token = 18446744073709551615ull;
  hello.rank = 12;
  hello.host = "node a\n7";
  const auto line = encode_progress(hello);
  ASSERT_EQ(line.back(), '\n');
  const auto back = parse_progress(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->what, progress_message::kind::hello);
  EXPECT_EQ(back->token, hello.token);
  EXPECT_EQ(back->rank, 12);
  EXPECT_EQ(back->host, "node a 7");  // control characters become spaces: one line

  progress_message enter;
  enter.what = progress_message::kind::enter;
  enter.operation = 42;
  enter.name = "all_reduce 8 B in place";
  const auto e = parse_progress("enter 42 all_reduce 8 B in place");
  ASSERT_TRUE(e);
  EXPECT_EQ(encode_progress(*e), encode_progress(enter));
  EXPECT_EQ(e->operation, 42u);
  EXPECT_EQ(e->name, "all_reduce 8 B in place");
  EXPECT_EQ(parse_progress("alive")->what, progress_message::kind::alive);
  EXPECT_EQ(parse_progress("done")->what, progress_message::kind::done);
}

TEST(ProgressWire, LongNamesAreCutToTheLimit) {
  progress_message enter;
  enter.what = progress_message::kind::enter;
  enter.operation = 1;
  enter.name = std::string(5000, 'x');
  const auto line = encode_progress(enter);
  EXPECT_LE(line.size(), progress_line_limit);
  EXPECT_TRUE(parse_progress(std::string_view(line).substr(0, line.size() - 1)));
}

TEST(ProgressWire, RejectsMalformedLines) {
  for (const char* bad : {"", "hello", "alive ", "done now", "enter", "enter x name", "enter 0 name", "enter -1 a",
                          "enter 12x name", "ironbench-progress 2 1 1 host", "ironbench-progress 1 1 -3 host",
                          "ironbench-progress 1 abc 1 host", "ironbench-progress 1 1", "ENTER 1 a"}) {
    EXPECT_FALSE(parse_progress(bad)) << bad;
  }
  EXPECT_FALSE(parse_progress("enter 1 " + std::string(progress_line_limit, 'x')));
}

}  // namespace
}  // namespace ironbench::comm
