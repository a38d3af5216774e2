#include "serve/metrics/server_metrics_summary.hpp"

#include <gtest/gtest.h>

#include "serve/metrics/engine_metric_names.hpp"
#include "serve/point/point_timeline.hpp"

namespace ironbench::serve {
namespace {

// A round at `t_s` seconds with one answer per text ("" : a failed GET).
scrape_round round_at(double t_s, const std::vector<std::string>& texts) {
  scrape_round r;
  r.monotonic_ns = static_cast<std::int64_t>(t_s * 1e9);
  for (const auto& text : texts) {
    endpoint_scrape e;
    if (text.empty()) {
      e.error = "HTTP 404";
    } else {
      e.ok = true;
      e.samples = parse_prometheus_text(text).samples;
    }
    r.endpoints.push_back(std::move(e));
  }
  return r;
}

json summary_of(const std::vector<scrape_round>& rounds, std::size_t urls = 1) {
  return summarize_server_metrics(rounds, std::vector<std::string>(urls, "http://h/metrics"), 0, 1);
}

TEST(ServerMetricsSummary, GaugesGiveMeanAndMaxCountersIncreaseAndRate) {
  const auto s = summary_of({
      round_at(0, {"vllm:num_requests_running{engine=\"0\"} 2\nvllm:kv_cache_usage_perc 0.1\n"
                   "vllm:generation_tokens_total 100\n"}),
      round_at(1, {"vllm:num_requests_running{engine=\"0\"} 4\nvllm:kv_cache_usage_perc 0.3\n"
                   "vllm:generation_tokens_total 400\n"}),
      round_at(3, {"vllm:num_requests_running{engine=\"0\"} 6\nvllm:kv_cache_usage_perc 0.5\n"
                   "vllm:generation_tokens_total 500\n"}),
  });
  EXPECT_EQ(s.at("engine"), "vllm");
  const auto& m = s.at("metrics");
  EXPECT_DOUBLE_EQ(m.at("running_requests").at("mean").get<double>(), 4);
  EXPECT_DOUBLE_EQ(m.at("running_requests").at("max").get<double>(), 6);
  EXPECT_DOUBLE_EQ(m.at("kv_cache_usage_percent").at("mean").get<double>(), 30);
  EXPECT_DOUBLE_EQ(m.at("kv_cache_usage_percent").at("max").get<double>(), 50);
  EXPECT_DOUBLE_EQ(m.at("generation_tokens").at("increase").get<double>(), 400);
  EXPECT_DOUBLE_EQ(m.at("generation_tokens").at("rate_per_s_mean").get<double>(), 400.0 / 3);
  EXPECT_DOUBLE_EQ(m.at("generation_tokens").at("rate_per_s_max").get<double>(), 300);
  EXPECT_EQ(s.at("timeline").at("generation_tokens"), json::parse("[null, 300.0, 50.0]"));
  EXPECT_EQ(s.at("raw").at("series").at("vllm:num_requests_running{engine=\"0\"}"), json::parse("[2.0, 4.0, 6.0]"));
  const auto flat = server_metric_values(s);
  EXPECT_DOUBLE_EQ(flat.at("server_running_requests_mean"), 4);
  EXPECT_DOUBLE_EQ(flat.at("server_generation_tokens_increase"), 400);
  EXPECT_DOUBLE_EQ(flat.at("server_generation_tokens_per_s"), 400.0 / 3);
  EXPECT_EQ(flat.count("server_waiting_requests_mean"), 0U);  // the server did not report it
}

TEST(ServerMetricsSummary, ACounterThatRestartsCountsFromZero) {
  const auto s =
      summary_of({round_at(0, {"vllm:prompt_tokens_total 1000\n"}), round_at(1, {"vllm:prompt_tokens_total 1200\n"}),
                  round_at(2, {"vllm:prompt_tokens_total 50\n"})});
  EXPECT_DOUBLE_EQ(s.at("metrics").at("prompt_tokens").at("increase").get<double>(), 250);
}

TEST(ServerMetricsSummary, HitRatesAreRatiosOfIncreasesAndTheOlderNameIsAnAlternative) {
  const auto s = summary_of({
      round_at(
          0, {"vllm:gpu_cache_usage_perc 0.5\nvllm:prefix_cache_hits_total 10\nvllm:prefix_cache_queries_total 100\n"}),
      round_at(
          1, {"vllm:gpu_cache_usage_perc 0.5\nvllm:prefix_cache_hits_total 60\nvllm:prefix_cache_queries_total 200\n"}),
      round_at(
          2, {"vllm:gpu_cache_usage_perc 0.5\nvllm:prefix_cache_hits_total 60\nvllm:prefix_cache_queries_total 300\n"}),
  });
  const auto& m = s.at("metrics");
  EXPECT_DOUBLE_EQ(m.at("kv_cache_usage_percent").at("mean").get<double>(), 50);
  EXPECT_EQ(m.at("kv_cache_usage_percent").at("series"), "vllm:gpu_cache_usage_perc");
  EXPECT_DOUBLE_EQ(m.at("prefix_cache_hit_percent").at("mean").get<double>(), 25);  // 50 of 200
  EXPECT_DOUBLE_EQ(m.at("prefix_cache_hit_percent").at("max").get<double>(), 50);
}

TEST(ServerMetricsSummary, EveryEngineOfTheTableIsDetectedUnderTheCommonNames) {
  const std::vector<std::pair<std::string, std::string>> engines = {
      {"sglang", "sglang:num_running_reqs{model_name=\"m\"} 3\nsglang:num_queue_reqs 1\nsglang:token_usage 0.2\n"},
      {"tgi", "tgi_batch_current_size 3\ntgi_queue_size 1\ntgi_request_generated_tokens_sum 10\n"},
      {"llama.cpp",
       "llamacpp:requests_processing 3\nllamacpp:requests_deferred 1\nllamacpp:tokens_predicted_total 5\n"},
      {"tensorrt-llm",
       "nv_trt_llm_request_metrics{request_type=\"active\",model=\"m\"} 3\n"
       "nv_trt_llm_request_metrics{request_type=\"max\",model=\"m\"} 64\n"
       "nv_trt_llm_request_metrics{request_type=\"waiting\",model=\"m\"} 1\n"
       "nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type=\"fraction\"} 0.2\n"}};
  for (const auto& [engine, text] : engines) {
    const auto s = summary_of({round_at(0, {text})});
    EXPECT_EQ(s.at("engine"), engine);
    EXPECT_DOUBLE_EQ(s.at("metrics").at("running_requests").at("mean").get<double>(), 3) << engine;
    EXPECT_DOUBLE_EQ(s.at("metrics").at("waiting_requests").at("mean").get<double>(), 1) << engine;
  }
  EXPECT_EQ(known_engines(), (std::vector<std::string>{"vllm", "sglang", "tgi", "llama.cpp", "tensorrt-llm"}));
  for (const auto& row : engine_series_table()) {
    bool known = false;
    for (const auto& m : server_metrics()) known = known || std::string(m.name) == row.metric;
    EXPECT_TRUE(known) << row.metric;
  }
}

TEST(ServerMetricsSummary, SeveralServersAddUpRequestsAndAverageFractions) {
  const auto s = summary_of({round_at(0, {"vllm:num_requests_running 2\nvllm:kv_cache_usage_perc 0.2\n",
                                          "vllm:num_requests_running 5\nvllm:kv_cache_usage_perc 0.4\n"})},
                            2);
  EXPECT_DOUBLE_EQ(s.at("metrics").at("running_requests").at("mean").get<double>(), 7);
  EXPECT_NEAR(s.at("metrics").at("kv_cache_usage_percent").at("mean").get<double>(), 30, 1e-12);
  EXPECT_TRUE(s.at("raw").at("series").contains("1/vllm:num_requests_running"));
}

TEST(ServerMetricsSummary, FailedScrapesAreCountedAndNamed) {
  const auto s = summary_of({round_at(0, {""}), round_at(1, {""})});
  EXPECT_EQ(s.at("failed_scrapes"), 2);
  EXPECT_EQ(s.at("error"), "GET http://h/metrics: HTTP 404");
  EXPECT_TRUE(s.at("engine").is_null());
  EXPECT_TRUE(server_metric_values(s).empty());
}

TEST(ScrapeHeaders, TheApiKeyGoesOnlyToTheServersTheRequestsGoTo) {
  const std::vector<std::string> headers = {"Authorization: Bearer secret"};
  const std::vector<std::string> bases = {"http://10.0.0.1:8000", "https://llm.example:8443"};
  EXPECT_EQ(scrape_headers({"http://10.0.0.1:8000/metrics", "https://llm.example:8443/metrics"}, bases, headers),
            headers);
  EXPECT_TRUE(scrape_headers({"http://10.0.0.1:9090/metrics"}, bases, headers).empty()) << "another port";
  EXPECT_TRUE(scrape_headers({"https://10.0.0.1:8000/metrics"}, bases, headers).empty()) << "another scheme";
  EXPECT_TRUE(scrape_headers({"http://10.0.0.1:8000/metrics", "http://prometheus:9090/api"}, bases, headers).empty());
}

TEST(PointTimeline, ClientRateCountsEveryTokenOnceInItsWindow) {
  request_record r;
  r.success = true;
  r.output_len = 4;
  r.sent_s = 0.2;
  r.ttft_s = 0.5;             // first token at 0.7
  r.itl_s = {0.2, 0.4, 0.9};  // then 0.9, 1.3, 2.2
  request_record failed;
  failed.output_len = 100;
  const auto rate = client_output_rate({r, failed}, 2.5, 1.0);
  EXPECT_EQ(rate, (std::vector<double>{2, 1, 2}));  // last window 0.5 s long: 1 token / 0.5 s
  const auto series = point_timeline({r}, 2.5, 1.0, nullptr);
  EXPECT_EQ(series.at("client_t_s"), (std::vector<double>{1, 2, 2.5}));
  EXPECT_EQ(series.count("server_t_s"), 0U);
}

}  // namespace
}  // namespace ironbench::serve
