// The steady-state window of a point and its metrics, on hand-made records whose window,
// requests and throughputs are worked out by hand.
#include "serve/point/steady_state_window.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

// A completed request sent at `sent_s`: its first of `tokens` tokens after `ttft_s`, then one
// every `gap_s`.
request_record steady_request(double sent_s, double ttft_s, double gap_s, int tokens) {
  request_record r;
  r.success = true;
  r.prompt_len = 8;
  r.output_len = tokens;
  r.sent_s = r.scheduled_s = sent_s;
  r.ttft_s = ttft_s;
  r.itl_s.assign(static_cast<std::size_t>(tokens - 1), gap_s);
  r.e2el_s = ttft_s + gap_s * (tokens - 1);
  return r;
}

// Max concurrency 2, five requests: the second is sent at 0.1 s (2 in flight: the window
// opens); the last is sent at 2.0 s, and the first end after it, 2.1 s, begins the drain.
//   r0 0.0 -> 1.0   r1 0.1 -> 1.1   r2 1.0 -> 2.0 (TTFT 300 ms, TPOT 70 ms)
//   r3 1.1 -> 2.1   r4 2.0 -> 2.5
std::vector<request_record> closed_loop() {
  return {steady_request(0.0, 0.5, 0.05, 11), steady_request(0.1, 0.5, 0.05, 11), steady_request(1.0, 0.3, 0.07, 11),
          steady_request(1.1, 0.5, 0.05, 11), steady_request(2.0, 0.25, 0.025, 11)};
}

TEST(SteadyState, ClosedLoopFromTheConcurrencyReachedToTheDrain) {
  std::string why;
  const auto w = steady_state_window(closed_loop(), {false, 2}, why);
  ASSERT_TRUE(w) << why;
  EXPECT_DOUBLE_EQ(w->start_s, 0.1);
  EXPECT_DOUBLE_EQ(w->end_s, 2.1);
  metric_selection selection;
  selection.metrics = {"ttft", "tpot"};
  selection.percentiles = {50};
  const auto m = steady_state_metrics(closed_loop(), {false, 2}, selection);
  EXPECT_DOUBLE_EQ(m.at("duration_s").get<double>(), 2.0);
  // Sent and ended inside: r1, r2, r3.
  EXPECT_EQ(m.at("requests"), 3);
  EXPECT_EQ(m.at("completed"), 3);
  // Tokens in (0.1, 2.1]: all of r0, r1, r2 and r3 (r3's last at 2.1), none of r4 (from 2.25).
  EXPECT_NEAR(m.at("output_tokens").get<double>(), 44, 1e-9);
  EXPECT_NEAR(m.at("output_throughput").get<double>(), 22, 1e-9);
  // Completions in the window: r0 to r3.
  EXPECT_NEAR(m.at("request_throughput").get<double>(), 2, 1e-9);
  EXPECT_NEAR(m.at("median_ttft_ms").get<double>(), 500, 1e-6);
  EXPECT_NEAR(m.at("mean_ttft_ms").get<double>(), 1300.0 / 3, 1e-6);
  EXPECT_NEAR(m.at("median_tpot_ms").get<double>(), 50, 1e-6);
  EXPECT_NEAR(m.at("mean_tpot_ms").get<double>(), 170.0 / 3, 1e-6);
  EXPECT_FALSE(m.at("rule").get<std::string>().empty());
}

// 5 requests/s, each 400 ms and 5 tokens (one every 50 ms after 200 ms). The first completes at
// 0.4 s; the last is sent at 0.8 s and the first end after it is r3's, at 1.0 s. In (0.4, 1.0]:
// 4 tokens of r1, all 5 of r2 and r3, r4's first: 15 tokens in 0.6 s = 25 tok/s, the
// offered 5 requests/s x 5 tokens, where the whole point gives 25 / 1.2 s.
TEST(SteadyState, OnAScheduleFromTheFirstCompletionToTheDrain) {
  std::vector<request_record> records;
  for (int i = 0; i < 5; ++i) records.push_back(steady_request(0.2 * i, 0.2, 0.05, 5));
  metric_selection selection;
  const auto m = steady_state_metrics(records, {true, 0}, selection);
  ASSERT_TRUE(m.contains("start_s")) << m.dump();
  EXPECT_DOUBLE_EQ(m.at("start_s").get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(m.at("end_s").get<double>(), 1.0);
  EXPECT_EQ(m.at("requests"), 2);  // r2 and r3
  EXPECT_NEAR(m.at("output_tokens").get<double>(), 15, 1e-9);
  EXPECT_NEAR(m.at("output_throughput").get<double>(), 25, 1e-9);
  // r1, r2, r3 complete in (0.4, 1.0].
  EXPECT_NEAR(m.at("request_throughput").get<double>(), 5, 1e-9);
  // A concurrency limit on a schedule does not change the rule.
  EXPECT_DOUBLE_EQ(steady_state_metrics(records, {true, 2}, selection).at("start_s").get<double>(), 0.4);
}

TEST(SteadyState, NoWindowWhereNoLoadWasHeld) {
  std::string why;
  // Every request at once, no concurrency limit.
  EXPECT_FALSE(steady_state_window(closed_loop(), {false, 0}, why));
  EXPECT_NE(why.find("at once"), std::string::npos) << why;
  // A schedule whose every request was sent before the first completed.
  std::vector<request_record> burst;
  for (int i = 0; i < 4; ++i) burst.push_back(steady_request(0.01 * i, 0.2, 0.05, 5));
  EXPECT_FALSE(steady_state_window(burst, {true, 0}, why));
  EXPECT_NE(why.find("ramp-up"), std::string::npos) << why;
  // Nothing completed.
  auto failed = closed_loop();
  for (auto& r : failed) r.success = false;
  EXPECT_FALSE(steady_state_window(failed, {true, 0}, why));
  // Concurrency never reached: one request in flight at a time against a limit of 2.
  const std::vector<request_record> serial = {steady_request(0, 0.1, 0.1, 2), steady_request(0.3, 0.1, 0.1, 2)};
  EXPECT_FALSE(steady_state_window(serial, {false, 2}, why));
  const auto m = steady_state_metrics(serial, {false, 2}, {});
  EXPECT_TRUE(m.at("window").is_null());
  EXPECT_FALSE(m.at("reason").get<std::string>().empty());
  EXPECT_FALSE(steady_state_window({}, {true, 0}, why));
}

}  // namespace
}  // namespace ironbench::serve
