#include "comm/hang_culprits.hpp"

#include <gtest/gtest.h>

namespace ironbench::comm {
namespace {

using link = rank_progress::link;

rank_progress at(int rank, const std::string& host, std::uint64_t operation, link state = link::reporting,
                 double silent_s = 0.2) {
  rank_progress r;
  r.rank = rank;
  r.host = host;
  r.operation = operation;
  r.name = operation == 0 ? "" : "op " + std::to_string(operation);
  r.state = state;
  r.silent_s = silent_s;
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

TEST(HangCulprits, ARankWhoseKeepalivesStoppedIsNamedEvenInTheFurthestOperation) {
  // Rank 2 entered operation 5 with the others and then stopped (SIGSTOP): its link is open,
  // but it has said nothing for 7 s.
  const auto v = judge_hang({at(0, "a", 5), at(1, "a", 5), at(2, "b", 5, link::reporting, 7.2), at(3, "b", 5)});
  ASSERT_EQ(named(v), std::vector<int>{2});
  EXPECT_EQ(v.culprits[0].state, link::silent);
  EXPECT_EQ(v.culprits[0].host, "b");
  EXPECT_NE(v.culprits[0].why.find("stopped responding (no keepalive for 7 s) after entering operation #5 (op 5)"),
            std::string::npos)
      << v.culprits[0].why;
  const auto line = hang_line(v, 3);
  EXPECT_NE(line.find("the job waits for rank 2 (host b), which stopped responding"), std::string::npos) << line;
  EXPECT_EQ(line.find("no rank is missing"), std::string::npos);
  const auto j = hang_json(v, 3);
  EXPECT_EQ(j["cause"], "no_progress");
  EXPECT_EQ(j["culprits"][0]["state"], "stopped_responding");
  EXPECT_DOUBLE_EQ(j["culprits"][0]["silent_s"].get<double>(), 7.2);
  EXPECT_EQ(j["culprits"][0]["last_operation"], 5);
}

TEST(HangCulprits, AStoppedRankBehindIsNamedStoppedNotMerelyBehind) {
  const auto v = judge_hang({at(0, "a", 5), at(1, "b", 4, link::reporting, 9)});
  ASSERT_EQ(named(v), std::vector<int>{1});
  EXPECT_EQ(v.culprits[0].state, link::silent);
}

TEST(HangCulprits, AHungCollectiveWithEveryRankAliveNamesNone) {
  // Every rank is in the operation and its keepalives arrive (a second apart at most, a late
  // one up to the limit): the collective, a link or the library hangs.
  const auto v = judge_hang({at(0, "a", 8, link::reporting, 0), at(1, "a", 8, link::reporting, 0.9),
                             at(2, "b", 8, link::reporting, silent_limit_s), at(3, "b", 8, link::reporting, 1.4)});
  EXPECT_TRUE(v.culprits.empty());
  EXPECT_NE(hang_line(v, 3).find("every rank entered it, so no rank is missing"), std::string::npos);
}

TEST(HangCulprits, RankZeroWaitsForARankInDoubtUntilItPassesTheLimit) {
  // Missed one keepalive: stopped, or only late on a busy host. Wait until it passes the limit.
  EXPECT_DOUBLE_EQ(verdict_wait_s({at(0, "a", 3, link::reporting, 0), at(1, "a", 3, link::reporting, 3.0)}),
                   silent_limit_s - 3.0 + 0.25);
  EXPECT_DOUBLE_EQ(verdict_wait_s({at(1, "a", 3, link::reporting, 2.0), at(2, "a", 3, link::reporting, 4.5)}),
                   silent_limit_s - 2.0 + 0.25);
  // Nobody in doubt: heard within 1.5 keepalives, already past the limit, or not reporting.
  EXPECT_EQ(verdict_wait_s({at(1, "a", 3, link::reporting, 1.2), at(2, "b", 3, link::reporting, 8),
                            at(3, "b", 3, link::dropped, 3), at(4, "b", 0, link::never_connected, 3)}),
            0.0);
}

TEST(HangCulprits, ADeathNamesTheDeadRanksNotThoseOnTheirWay) {
  // Rank 1 died in operation 4; rank 3 is only behind and rank 2 has not connected yet: a
  // death is judged at once, so neither is to blame.
  const auto v = judge_hang({at(0, "a", 5), at(1, "a", 4, link::dropped), at(2, "b", 0, link::never_connected),
                             at(3, "b", 3), at(4, "b", 5, link::reporting, 9)},
                            hang_cause::rank_died);
  EXPECT_EQ(v.cause, hang_cause::rank_died);
  ASSERT_EQ(named(v), (std::vector<int>{1, 4}));  // and a stopped one, a fact as well
  const auto line = hang_line(v, 300);
  EXPECT_EQ(line.rfind("the job lost rank 1 (host a), which died (its side channel closed) after entering operation #4 "
                       "(op 4); rank 4 (host b), which stopped responding",
                       0),
            0u)
      << line;
  EXPECT_EQ(line.find("300"), std::string::npos);  // not a timeout
  const auto j = hang_json(v, 300);
  EXPECT_EQ(j["cause"], "rank_died");
  EXPECT_EQ(j["reported_by"], 0);
  EXPECT_EQ(j["culprits"][0]["state"], "died");
  EXPECT_EQ(j["culprits"][0]["last_operation"], 4);
}

TEST(HangCulprits, ARankDeadAtStartUpSaysSo) {
  const auto v = judge_hang({at(0, "a", 1), at(1, "b", 0, link::dropped)}, hang_cause::rank_died);
  ASSERT_EQ(named(v), std::vector<int>{1});
  EXPECT_EQ(v.culprits[0].why, "died (its side channel closed) during start-up (before its first operation)");
}

TEST(HangCulprits, TheLowestRankAliveNamesRankZeroAndTheOtherDead) {
  const auto v = judge_lost_monitor(1, 7, "op 7", {3, 1}, {"a", "a", "b", "b"});
  EXPECT_EQ(v.cause, hang_cause::rank0_died);
  EXPECT_EQ(v.reporter, 1);
  ASSERT_EQ(named(v), (std::vector<int>{0, 3}));  // never the reporter itself
  EXPECT_EQ(v.culprits[0].host, "a");
  EXPECT_EQ(v.culprits[1].host, "b");
  const auto line = hang_line(v, 3);
  EXPECT_NE(line.find("the job lost rank 0 (host a), which died (its side channel to rank 1 closed); rank 3 (host b)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("rank 1, the lowest rank alive, reports it (its last operation: operation #7 (op 7))"),
            std::string::npos)
      << line;
  const auto j = hang_json(v, 3);
  EXPECT_EQ(j["cause"], "rank0_died");
  EXPECT_EQ(j["reported_by"], 1);
  EXPECT_EQ(j["culprits"][0]["rank"], 0);
  EXPECT_EQ(j["culprits"][0]["state"], "died");
  EXPECT_FALSE(j["culprits"][0].contains("last_operation"));  // unknown to rank 1
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
  EXPECT_EQ(parse_progress("over")->what, progress_message::kind::over);
  EXPECT_EQ(encode_progress(*parse_progress("over")), "over\n");
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
  for (const char* bad :
       {"", "hello", "alive ", "done now", "over 1", "enter", "enter x name", "enter 0 name", "enter -1 a",
        "enter 12x name", "ironbench-progress 9 1 1 host", "ironbench-progress 1 1 -3 host",
        "ironbench-progress 1 abc 1 host", "ironbench-progress 1 1", "ENTER 1 a"}) {
    EXPECT_FALSE(parse_progress(bad)) << bad;
  }
  EXPECT_FALSE(parse_progress("enter 1 " + std::string(progress_line_limit, 'x')));
}

}  // namespace
}  // namespace ironbench::comm
