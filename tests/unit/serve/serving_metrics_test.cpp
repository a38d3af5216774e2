#include "serve/measures/serving_metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "serve/point/lateness_limit.hpp"
#include "serve/workload/arrival_schedule.hpp"

namespace ironbench::serve {
namespace {

std::vector<request_record> three_requests() {
  request_record a;
  a.success = true;
  a.prompt_len = 10;
  a.output_len = 4;
  a.ttft_s = 0.1;
  a.e2el_s = 0.4;
  a.itl_s = {0.1, 0.1, 0.1};
  a.sent_s = 0;
  request_record b;
  b.success = true;
  b.prompt_len = 20;
  b.output_len = 1;
  b.ttft_s = 0.2;
  b.e2el_s = 0.2;
  b.sent_s = 0.05;
  request_record c;
  c.success = false;
  c.error_class = "http_5xx";
  c.sent_s = 0.3;
  c.e2el_s = 0.01;
  return {a, b, c};
}

TEST(ServingMetrics, HandComputedVllmDefinitions) {
  metric_selection selection;
  selection.metrics = {"ttft", "tpot", "itl", "e2el"};
  selection.percentiles = {50, 99, 99.9};
  const auto m = serving_metrics(three_requests(), 1.0, {}, selection);
  EXPECT_EQ(m.at("completed"), 2);
  EXPECT_EQ(m.at("failed"), 1);
  EXPECT_EQ(m.at("total_input_tokens"), 30);
  EXPECT_EQ(m.at("total_output_tokens"), 5);
  EXPECT_DOUBLE_EQ(m.at("request_throughput").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(m.at("output_throughput").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(m.at("total_token_throughput").get<double>(), 35.0);
  EXPECT_NEAR(m.at("mean_ttft_ms").get<double>(), 150, 1e-9);
  EXPECT_NEAR(m.at("median_ttft_ms").get<double>(), 150, 1e-9);
  EXPECT_NEAR(m.at("std_ttft_ms").get<double>(), 50, 1e-9);   // population
  EXPECT_NEAR(m.at("p99_ttft_ms").get<double>(), 199, 1e-9);  // linear interpolation
  EXPECT_NEAR(m.at("p99.9_ttft_ms").get<double>(), 199.9, 1e-9);
  EXPECT_NEAR(m.at("mean_tpot_ms").get<double>(), 100, 1e-9);  // only requests with > 1 token
  EXPECT_NEAR(m.at("std_tpot_ms").get<double>(), 0, 1e-9);
  EXPECT_NEAR(m.at("mean_itl_ms").get<double>(), 100, 1e-9);
  EXPECT_NEAR(m.at("mean_e2el_ms").get<double>(), 300, 1e-9);
  EXPECT_NEAR(m.at("std_e2el_ms").get<double>(), 100, 1e-9);
  EXPECT_EQ(m.at("max_concurrent_requests"), 2);
  EXPECT_EQ(m.at("errors_by_class").at("http_5xx"), 1);
  EXPECT_FALSE(m.contains("request_goodput"));
}

TEST(ServingMetrics, GoodputCountsRequestsMeetingEverySlo) {
  const auto records = three_requests();
  EXPECT_DOUBLE_EQ(serving_metrics(records, 2.0, parse_goodput({"ttft:150"}), {}).at("request_goodput").get<double>(),
                   0.5);
  // tpot of a one-token request counts as 0, as in vLLM.
  EXPECT_DOUBLE_EQ(serving_metrics(records, 1.0, parse_goodput({"tpot:50"}), {}).at("request_goodput").get<double>(),
                   1.0);
  EXPECT_DOUBLE_EQ(
      serving_metrics(records, 1.0, parse_goodput({"ttft:250", "e2el:300"}), {}).at("request_goodput").get<double>(),
      1.0);
  EXPECT_THROW((void)parse_goodput({"ttft"}), usage_error);
  EXPECT_THROW((void)parse_goodput({"latency:5"}), usage_error);
  EXPECT_THROW((void)parse_goodput({"ttft:-1"}), usage_error);
}

TEST(ServingMetrics, LatencyFromTheIntendedSendTimeCountsTheWaitBeforeSending) {
  auto records = three_requests();
  records[0].scheduled_s = 0;     // sent on time
  records[1].scheduled_s = 0.01;  // waited 40 ms for a slot
  records[2].scheduled_s = 0.1;   // failed: its delay counts, its latencies do not
  metric_selection selection;
  selection.percentiles = {50};
  const auto m = schedule_latency_metrics(records, selection);
  EXPECT_NEAR(m.at("mean_schedule_delay_ms").get<double>(), (0 + 40 + 200) / 3.0, 1e-9);
  EXPECT_NEAR(m.at("median_schedule_delay_ms").get<double>(), 40, 1e-9);
  EXPECT_NEAR(m.at("mean_ttft_from_schedule_ms").get<double>(), (100 + 240) / 2.0, 1e-9);
  EXPECT_NEAR(m.at("mean_e2el_from_schedule_ms").get<double>(), (400 + 240) / 2.0, 1e-9);
  EXPECT_TRUE(m.contains("p50_e2el_from_schedule_ms")) << "every selected percentile, for each";
  // A send before its schedule cannot happen; a clock's rounding must not make it negative.
  records[0].scheduled_s = 0.001;
  EXPECT_GE(schedule_latency_metrics(records, selection).at("mean_schedule_delay_ms").get<double>(), 0);
}

TEST(LatenessLimit, GrowsWithTheLoadAndNeverBelowTheFloor) {
  // The rule's motivating case: 20 req/s Poisson (50 ms mean gaps), 600 ms E2EL: a p99
  // lateness of 7.2 ms is small against both.
  const auto loose = lateness_limit_for(1.0, 50, 600);
  EXPECT_DOUBLE_EQ(loose.limit_ms, 12) << "the smaller of 25 % of 50 ms and 2 % of 600 ms";
  EXPECT_EQ(loose.basis, "2 % of the 600 ms median E2EL");
  EXPECT_GT(loose.limit_ms, 7.2);
  const auto by_gap = lateness_limit_for(1.0, 20, 5000);
  EXPECT_DOUBLE_EQ(by_gap.limit_ms, 5);
  EXPECT_EQ(by_gap.basis, "25 % of the 20 ms mean gap between sends");
  // Tight loads keep the floor.
  const auto tight = lateness_limit_for(1.0, 1, 20);
  EXPECT_DOUBLE_EQ(tight.limit_ms, 1);
  EXPECT_EQ(tight.basis, "the floor 1 ms (--max-lateness-ms)");
  EXPECT_DOUBLE_EQ(lateness_limit_for(2.5, 0, 0).limit_ms, 2.5) << "nothing to judge the load by";
  EXPECT_DOUBLE_EQ(lateness_limit_for(0.5, 8, 0).limit_ms, 2) << "no completed request: the gap alone";
}

TEST(ServingMetrics, EmptyRunsAndNames) {
  const auto m = serving_metrics({}, 0.0, {}, {});
  EXPECT_EQ(m.at("completed"), 0);
  EXPECT_DOUBLE_EQ(m.at("mean_ttft_ms").get<double>(), 0);
  EXPECT_EQ(percentile_key(99, "ttft"), "p99_ttft_ms");
  EXPECT_EQ(percentile_key(99.9, "itl"), "p99.9_itl_ms");
  EXPECT_EQ(percentile_key(50, "e2el"), "p50_e2el_ms");
}

TEST(ArrivalSchedule, GammaGapsWithTheRequestedRateAndBurstiness) {
  const auto times = arrival_times(20000, 10.0, 1.0, 42);
  EXPECT_EQ(times.front(), 0.0);
  EXPECT_NEAR(times.back() / 19999.0, 0.1, 0.005);  // mean gap 1 / rate
  std::vector<double> gaps;
  for (std::size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
  double mean = 0, squares = 0;
  for (double g : gaps) mean += g;
  mean /= static_cast<double>(gaps.size());
  for (double g : gaps) squares += (g - mean) * (g - mean);
  const double cv = std::sqrt(squares / static_cast<double>(gaps.size())) / mean;
  EXPECT_NEAR(cv, 1.0, 0.05);  // Poisson: exponential gaps
  const auto bursty = arrival_times(20000, 10.0, 0.25, 42);
  EXPECT_NEAR(bursty.back() / 19999.0, 0.1, 0.01);
  EXPECT_EQ(arrival_times(5, 10.0, 1.0, 7), arrival_times(5, 10.0, 1.0, 7));
  EXPECT_EQ(arrival_times(3, INFINITY, 1.0, 1), (std::vector<double>{0, 0, 0}));
  EXPECT_THROW((void)arrival_times(3, 0.0, 1.0, 1), usage_error);
  EXPECT_THROW((void)arrival_times(3, 1.0, 0.0, 1), usage_error);
}

}  // namespace
}  // namespace ironbench::serve
