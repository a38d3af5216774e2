#include "serve/client/client_ranks.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

request_record sent_at(double scheduled, double sent, double ttft, const std::string& endpoint = "http://a") {
  request_record r;
  r.success = true;
  r.scheduled_s = scheduled;
  r.sent_s = sent;
  r.ttft_s = ttft;
  r.e2el_s = ttft + 0.1;
  r.output_len = 3;
  r.itl_s = {0.05, 0.05};
  r.endpoint = endpoint;
  return r;
}

TEST(ClientRanks, ConcurrencyIsSplitAsEvenlyAsPossible) {
  EXPECT_EQ(concurrency_share(8, 0, 2), 4);
  EXPECT_EQ(concurrency_share(10, 0, 4), 3);
  EXPECT_EQ(concurrency_share(10, 1, 4), 3);
  EXPECT_EQ(concurrency_share(10, 2, 4), 2);
  EXPECT_EQ(concurrency_share(0, 3, 4), 0) << "unlimited stays unlimited";
  EXPECT_EQ(concurrency_share(5, 0, 1), 5);
}

TEST(ClientRanks, ResultsSurviveTheirJsonForm) {
  load_result r;
  r.records = {sent_at(0.1, 0.11, 0.02)};
  r.records[0].usage_output_tokens = 3;
  r.records[0].generated_text = "a \"quoted\" text";
  r.records[0].usage_problem = "usage.completion_tokens -5 is negative";
  r.records[0].invalid_utf8 = true;
  r.duration_s = 0.5;
  r.origin_unix_s = 1.7e9;
  r.lateness_p99_ms = 0.4;
  r.host_others_percent = 12.5;
  r.valid = false;
  r.invalid_reason = "late";
  const auto back = load_result_from_json(json::parse(load_result_json(r).dump()));
  ASSERT_EQ(back.records.size(), 1U);
  EXPECT_EQ(back.records[0].itl_s, r.records[0].itl_s);
  EXPECT_EQ(*back.records[0].usage_output_tokens, 3);
  EXPECT_FALSE(back.records[0].tokenizer_output_tokens);
  EXPECT_EQ(back.records[0].generated_text, r.records[0].generated_text);
  EXPECT_EQ(back.records[0].usage_problem, r.records[0].usage_problem) << "rank 0 counts them and judges the point";
  EXPECT_TRUE(back.records[0].invalid_utf8);
  EXPECT_EQ(back.duration_s, 0.5);
  EXPECT_EQ(back.origin_unix_s, 1.7e9);
  EXPECT_EQ(*back.host_others_percent, 12.5);
  EXPECT_FALSE(back.host_steal_percent);
  EXPECT_EQ(back.invalid_reason, "late");
}

TEST(ClientRanks, RankZeroMergesEveryRequestOntoItsClock) {
  load_result zero, one;
  zero.origin_unix_s = 100.0;
  zero.records = {sent_at(0.0, 0.001, 0.02), sent_at(0.2, 0.2, 0.03)};
  zero.first_send_s = 0.001;
  zero.duration_s = 0.4;  // to 0.401
  zero.lateness_p99_ms = 0.2;
  one.origin_unix_s = 100.002;  // started 2 ms later
  one.records = {sent_at(0.1, 0.1, 0.04, "http://b")};
  one.first_send_s = 0.1;
  one.duration_s = 0.5;  // to 0.602 on rank 0's clock
  one.lateness_p99_ms = 0.7;
  one.valid = false;
  one.invalid_reason = "the client fell behind";
  const auto merged = merge_rank_results({zero, one}, {"http://a", "http://b"});
  ASSERT_EQ(merged.records.size(), 3U);
  EXPECT_NEAR(merged.records[1].scheduled_s, 0.102, 1e-9) << "in schedule order, on rank 0's clock";
  EXPECT_NEAR(merged.records[1].sent_s, 0.102, 1e-9);
  EXPECT_DOUBLE_EQ(merged.records[1].ttft_s, 0.04) << "durations are not moved";
  EXPECT_NEAR(merged.duration_s, 0.602 - 0.001, 1e-12);
  EXPECT_EQ(merged.lateness_p99_ms, 0.7);
  EXPECT_FALSE(merged.valid);
  EXPECT_EQ(merged.invalid_reason, "rank 1: the client fell behind");
  ASSERT_EQ(merged.ranks.size(), 2U);
  EXPECT_EQ(merged.ranks[1].at("requests"), 1);
  EXPECT_NEAR(merged.ranks[1].at("start_offset_ms").get<double>(), 2, 1e-6);
  EXPECT_EQ(merged.endpoints.at("http://b").at("completed"), 1);
  EXPECT_EQ(merged.endpoints.at("http://a").at("requests"), 2);
}

TEST(ClientRanks, OneRankNeedsNoGroup) {
  client_ranks single;
  EXPECT_FALSE(single.several());
  EXPECT_TRUE(single.rank0_says(true));
  EXPECT_FALSE(single.any(false));
  client_ranks group{1, 2, [] {}, nullptr, [](double v) { return v + 1; }};  // rank 0 said 1
  EXPECT_TRUE(group.rank0_says(false));
  EXPECT_TRUE(group.any(false));
}

}  // namespace
}  // namespace ironbench::serve
