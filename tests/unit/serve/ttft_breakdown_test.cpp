// The stage histograms' arithmetic (increase, mean, bucket-interpolated quantiles), --metrics-url
// roles, and the TTFT breakdown of a point built from made scrape rounds.
#include "serve/metrics/ttft_breakdown.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "serve/metrics/histogram_delta.hpp"
#include "serve/metrics/metrics_targets.hpp"

namespace ironbench::serve {
namespace {

// A histogram's exposition with the given bounds, cumulative counts, sum and count.
std::string histogram_text(const std::string& name, const std::vector<std::pair<std::string, double>>& buckets,
                           double sum, double count, const std::string& labels = "engine=\"0\"") {
  std::string out = "# TYPE " + name + " histogram\n";
  for (const auto& [le, c] : buckets) {
    out += name + "_bucket{" + labels + ",le=\"" + le + "\"} " + std::to_string(c) + "\n";
  }
  out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(count) + "\n";
  out += name + "_sum{" + labels + "} " + std::to_string(sum) + "\n";
  out += name + "_count{" + labels + "} " + std::to_string(count) + "\n";
  return out;
}

TEST(HistogramDelta, IncreaseMeanAndInterpolatedQuantiles) {
  const auto before = parse_prometheus_text(histogram_text("h", {{"0.1", 2}, {"1", 4}}, 1.0, 4)).samples;
  // The point added 10 observations: 4 in (0, 0.1], 4 in (0.1, 1], 2 above 1; their sum is 8 s.
  const auto after = parse_prometheus_text(histogram_text("h", {{"0.1", 6}, {"1", 12}}, 9.0, 14)).samples;
  const auto inc = histogram_increase(*read_histogram(before, "h"), *read_histogram(after, "h"));
  EXPECT_DOUBLE_EQ(inc.count, 10);
  EXPECT_DOUBLE_EQ(*histogram_mean(inc), 0.8);
  // Rank 5 of 10 lies 1 into the 4 of (0.1, 1]: 0.1 + 0.9 x 1/4.
  EXPECT_DOUBLE_EQ(*histogram_quantile(inc, 0.5), 0.1 + 0.9 * 0.25);
  // Rank 2 of 10 is half-way through the first bucket, interpolated from 0.
  EXPECT_DOUBLE_EQ(*histogram_quantile(inc, 0.2), 0.05);
  // Rank 9.9 is in the +Inf bucket: the highest finite bound.
  EXPECT_DOUBLE_EQ(*histogram_quantile(inc, 0.99), 1);
  EXPECT_FALSE(histogram_mean(histogram_reading{}));
  EXPECT_FALSE(histogram_quantile(histogram_reading{}, 0.5));
}

TEST(HistogramDelta, LabelSetsAddUpAndARestartCountsFromZero) {
  const auto text =
      histogram_text("h", {{"1", 1}}, 0.5, 1, "engine=\"0\"") + histogram_text("h", {{"1", 2}}, 4.0, 3, "engine=\"1\"");
  const auto h = *read_histogram(parse_prometheus_text(text).samples, "h");
  EXPECT_DOUBLE_EQ(h.count, 4);
  EXPECT_DOUBLE_EQ(h.sum, 4.5);
  ASSERT_EQ(h.cumulative.size(), 1U);
  EXPECT_DOUBLE_EQ(h.cumulative[0], 3);
  // The server restarted between the readings: what it counted since is the increase.
  histogram_reading restarted = h;
  restarted.count = 2;
  restarted.sum = 1;
  restarted.cumulative = {1};
  const auto inc = histogram_increase(h, restarted);
  EXPECT_DOUBLE_EQ(inc.count, 2);
  EXPECT_DOUBLE_EQ(inc.sum, 1);
  EXPECT_FALSE(read_histogram(parse_prometheus_text("other_count 3\n").samples, "h"));
}

TEST(MetricsTargets, RolesAreSplitOffAndMixingIsRefused) {
  std::vector<std::string> urls = {"prefill=http://p:8000/metrics", "decode=https://d/metrics?a=b"};
  EXPECT_EQ(split_metrics_roles(urls), (std::vector<std::string>{"prefill", "decode"}));
  EXPECT_EQ(urls, (std::vector<std::string>{"http://p:8000/metrics", "https://d/metrics?a=b"}));
  std::vector<std::string> plain = {"http://h/metrics?x=1"};
  EXPECT_EQ(split_metrics_roles(plain), (std::vector<std::string>{""}));
  EXPECT_EQ(plain.front(), "http://h/metrics?x=1");
  std::vector<std::string> mixed = {"prefill=http://p/metrics", "http://d/metrics"};
  EXPECT_THROW((void)split_metrics_roles(mixed), usage_error);
  std::vector<std::string> bad = {"pre fill=http://p/metrics"};
  EXPECT_THROW((void)split_metrics_roles(bad), usage_error);
}

// One scrape answer holding the three vLLM stage histograms, each with every observation at
// `seconds` of its stage (n requests so far).
endpoint_scrape vllm_answer(double n, double queue_s, double prefill_s, double decode_s) {
  std::string text;
  for (const auto& [name, v] : {std::pair{"vllm:request_queue_time_seconds", queue_s},
                                std::pair{"vllm:request_prefill_time_seconds", prefill_s},
                                std::pair{"vllm:request_decode_time_seconds", decode_s}}) {
    text +=
        histogram_text(name, {{"0.01", v <= 0.01 ? n : 0}, {"0.1", v <= 0.1 ? n : 0}, {"1", v <= 1 ? n : 0}}, v * n, n);
  }
  endpoint_scrape e;
  e.ok = true;
  for (auto& s : parse_prometheus_text(text).samples) {
    (s.name.size() > 7 && s.name.compare(s.name.size() - 7, 7, "_bucket") == 0 ? e.stage_buckets : e.samples)
        .push_back(std::move(s));
  }
  return e;
}

TEST(TtftBreakdown, MeansPercentilesAndTheTimeOutsideTheServer) {
  // Before the point: 5 requests (of other stage times); after: 15, the 10 new ones with queue
  // 20 ms, prefill 50 ms, decode 500 ms each... measured from the increase.
  std::vector<scrape_round> rounds(3);
  rounds[0].endpoints = {vllm_answer(5, 0.5, 0.5, 0.5)};
  rounds[1].endpoints = {endpoint_scrape{}};  // a failed scrape in between changes nothing
  rounds[2].endpoints = {vllm_answer(15, 0, 0, 0)};
  // Build the "after" from the "before" plus 10 observations of the new values.
  const auto before = vllm_answer(5, 0.5, 0.5, 0.5);
  const auto added = vllm_answer(10, 0.02, 0.05, 0.5);
  rounds[2].endpoints[0] = before;
  for (std::size_t i = 0; i < rounds[2].endpoints[0].samples.size(); ++i) {
    rounds[2].endpoints[0].samples[i].value += added.samples[i].value;
  }
  for (std::size_t i = 0; i < rounds[2].endpoints[0].stage_buckets.size(); ++i) {
    rounds[2].endpoints[0].stage_buckets[i].value += added.stage_buckets[i].value;
  }
  const auto b = summarize_ttft_breakdown(rounds, {"http://s/metrics"}, {}, 80.0, 600.0, 10);
  ASSERT_TRUE(b.summary.is_object());
  const auto& all = b.summary.at("roles").at("all");
  EXPECT_EQ(all.at("engine"), "vllm");
  EXPECT_DOUBLE_EQ(all.at("queue").at("requests").get<double>(), 10);
  EXPECT_NEAR(all.at("queue").at("mean_ms").get<double>(), 20, 1e-9);
  EXPECT_NEAR(all.at("prefill").at("mean_ms").get<double>(), 50, 1e-9);
  EXPECT_NEAR(all.at("decode").at("mean_ms").get<double>(), 500, 1e-9);
  // Every new queue time is in (0.01, 0.1]: the median interpolates to the middle of it.
  EXPECT_NEAR(all.at("queue").at("p50_ms").get<double>(), 55, 1e-9);
  EXPECT_NEAR(b.summary.at("outside_server_mean_ms").get<double>(), 80 - 70, 1e-9);
  EXPECT_NEAR(b.values.at("server_prefill_time_mean_ms"), 50, 1e-9);
  EXPECT_NEAR(b.values.at("ttft_outside_server_mean_ms"), 10, 1e-9);
  EXPECT_NE(ttft_breakdown_text(b.summary).find("Outside the server (ms, mean):"), std::string::npos);
}

TEST(TtftBreakdown, RolesAreReportedApartAndTheirServerTimesAddUp) {
  std::vector<scrape_round> rounds(2);
  rounds[0].endpoints = {vllm_answer(0, 0, 0, 0), vllm_answer(0, 0, 0, 0)};
  rounds[1].endpoints = {vllm_answer(4, 0.005, 0.2, 0.001), vllm_answer(4, 0.01, 0.03, 0.4)};
  const auto b = summarize_ttft_breakdown(rounds, {"http://p/metrics", "http://d/metrics"}, {"prefill", "decode"},
                                          300.0, 800.0, 4);
  ASSERT_TRUE(b.summary.is_object());
  EXPECT_NEAR(b.values.at("server_prefill_prefill_time_mean_ms"), 200, 1e-9);
  EXPECT_NEAR(b.values.at("server_decode_decode_time_mean_ms"), 400, 1e-9);
  EXPECT_FALSE(b.values.count("server_queue_time_mean_ms")) << "with roles every key names its role";
  // Server TTFT = both roles' queue + prefill: 5 + 200 + 10 + 30.
  EXPECT_NEAR(b.summary.at("server_ttft_mean_ms").get<double>(), 245, 1e-9);
  EXPECT_NEAR(b.summary.at("outside_server_mean_ms").get<double>(), 55, 1e-9);
}

TEST(TtftBreakdown, NoStageHistogramsNoBreakdown) {
  std::vector<scrape_round> rounds(2);
  endpoint_scrape e;
  e.ok = true;
  e.samples = parse_prometheus_text("vllm:num_requests_running 3\n").samples;
  rounds[0].endpoints = {e};
  rounds[1].endpoints = {e};
  const auto b = summarize_ttft_breakdown(rounds, {"http://s/metrics"}, {}, 10, 20, 2);
  EXPECT_TRUE(b.summary.is_null());
  EXPECT_TRUE(b.values.empty());
  EXPECT_TRUE(ttft_breakdown_text(b.summary).empty());
}

}  // namespace
}  // namespace ironbench::serve
