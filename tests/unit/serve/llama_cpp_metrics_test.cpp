// llama.cpp's llama-server under the common schema, from answers shaped like today's /metrics
// (tools/server/server-task.cpp's to_metrics: counters, then gauges, each with HELP and TYPE):
// the name mapping, the prefix-cache hit share of cached against processed prompt tokens, the
// mean prefill and decode time per request from its seconds counters, rows of features the
// server does not use left out, and one --metrics-url given twice refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "serve/metrics/metrics_targets.hpp"
#include "serve/metrics/server_metrics_summary.hpp"
#include "serve/metrics/ttft_breakdown.hpp"
#include "serve/point/serve_report.hpp"

namespace ironbench::serve {
namespace {

struct llama_counters {
  double prompt_tokens = 0, cached = 0, prompt_s = 0, predicted = 0, predicted_s = 0, decodes = 0;
  double processing = 0, deferred = 0, drafts = 0, accepted = 0;
};

// One /metrics answer as llama-server writes it.
std::string llama_metrics_text(const llama_counters& c) {
  std::string out;
  const auto item = [&](const char* type, const char* name, const char* help, double value) {
    std::ostringstream v;
    v << value;  // as the server prints its numbers (a stringstream's default format)
    out += fmt::format("# HELP llamacpp:{} {}\n# TYPE llamacpp:{} {}\nllamacpp:{} {}\n", name, help, name, type, name,
                       v.str());
  };
  item("counter", "prompt_tokens_total", "Number of prompt tokens processed, excluding cached tokens", c.prompt_tokens);
  item("counter", "prompt_tokens_cached_total", "Number of prompt tokens reused from the cache", c.cached);
  item("counter", "prompt_seconds_total", "Total time spent processing prompts", c.prompt_s);
  item("counter", "tokens_predicted_total", "Number of generation tokens processed", c.predicted);
  item("counter", "tokens_predicted_seconds_total", "Total time spent generating tokens", c.predicted_s);
  item("counter", "n_decode_total", "Total number of llama_decode() calls", c.decodes);
  item("counter", "n_tokens_max", "Largest observed sequence length (prompt + generation)", 600);
  item("counter", "spec_decode_num_draft_tokens_total", "Speculative: Total draft tokens generated", c.drafts);
  item("counter", "spec_decode_num_accepted_tokens_total", "Speculative: Total draft tokens accepted", c.accepted);
  item("counter", "spec_decode_num_drafts_total", "Speculative: Total speculative decoding verification steps", 0);
  item("gauge", "prompt_tokens_seconds", "Average prompt throughput in tokens/s", 2.37151);
  item("gauge", "predicted_tokens_seconds", "Average generation throughput in tokens/s", 40.5);
  item("gauge", "requests_processing", "Number of requests processing", c.processing);
  item("gauge", "requests_deferred", "Number of requests deferred", c.deferred);
  item("gauge", "n_busy_slots_per_decode", "Average number of busy slots per llama_decode() call", 1.5);
  return out;
}

scrape_round llama_round(double t_s, const llama_counters& c) {
  scrape_round r;
  r.monotonic_ns = static_cast<std::int64_t>(t_s * 1e9);
  endpoint_scrape e;
  e.ok = true;
  const auto parsed = parse_prometheus_text(llama_metrics_text(c));
  e.samples = parsed.samples;
  e.rejected_lines = parsed.rejected_lines;
  r.endpoints.push_back(std::move(e));
  return r;
}

// A point of 8 requests: 1,000 prompt tokens processed (40 cached) in 2.4 s of prompt batches,
// 512 tokens generated in 8 s of the requests' generation, from counters already running.
std::vector<scrape_round> llama_point(double drafts = 0, double accepted = 0) {
  llama_counters before{5000, 100, 10, 2000, 30, 2100, 0, 0, 0, 0};
  llama_counters middle{5600, 120, 11.5, 2300, 35, 2400, 4, 2, drafts / 2, accepted / 2};
  llama_counters after{6000, 140, 12.4, 2512, 38, 2612, 0, 0, drafts, accepted};
  return {llama_round(0, before), llama_round(2, middle), llama_round(4, after)};
}

json llama_summary(const std::vector<scrape_round>& rounds) {
  return summarize_server_metrics(rounds, {"http://127.0.0.1:8080/metrics"}, 0, 2);
}

TEST(LlamaCppMetrics, TodaysSeriesMapToTheCommonNames) {
  const auto rounds = llama_point();
  EXPECT_EQ(rounds.front().endpoints.front().rejected_lines, 0U);
  const auto s = llama_summary(rounds);
  EXPECT_EQ(s.at("engine"), "llama.cpp");
  const auto& m = s.at("metrics");
  EXPECT_EQ(m.at("running_requests").at("series"), "llamacpp:requests_processing");
  EXPECT_DOUBLE_EQ(m.at("running_requests").at("max").get<double>(), 4);
  EXPECT_EQ(m.at("waiting_requests").at("series"), "llamacpp:requests_deferred");
  EXPECT_DOUBLE_EQ(m.at("waiting_requests").at("max").get<double>(), 2);
  EXPECT_DOUBLE_EQ(m.at("prompt_tokens").at("increase").get<double>(), 1000);
  EXPECT_DOUBLE_EQ(m.at("generation_tokens").at("increase").get<double>(), 512);
  // Today's server exports no KV-cache usage: no row rather than an empty one.
  EXPECT_FALSE(m.contains("kv_cache_usage_percent"));
  EXPECT_TRUE(s.at("stage_data").get<bool>());
}

TEST(LlamaCppMetrics, TheHitShareIsCachedAgainstCachedAndProcessedPromptTokens) {
  const auto s = llama_summary(llama_point());
  const auto& hit = s.at("metrics").at("prefix_cache_hit_percent");
  // 40 cached of 1,040 prompt tokens (its prompt_tokens_total leaves the cached ones out).
  EXPECT_NEAR(hit.at("mean").get<double>(), 100.0 * 40 / 1040, 1e-9);
  EXPECT_NEAR(hit.at("max").get<double>(), 100.0 * 20 / 420, 1e-9);  // the second interval
  EXPECT_EQ(
      hit.at("series"),
      "llamacpp:prompt_tokens_cached_total / (llamacpp:prompt_tokens_cached_total + llamacpp:prompt_tokens_total)");
  EXPECT_NEAR(server_metric_values(s).at("server_prefix_cache_hit_percent_mean"), 100.0 * 40 / 1040, 1e-9);
  // A point served wholly from the cache reads 100 %.
  const auto warm = llama_summary({llama_round(0, {100, 0, 1, 0, 0, 0}), llama_round(1, {100, 500, 1, 0, 0, 0})});
  EXPECT_DOUBLE_EQ(warm.at("metrics").at("prefix_cache_hit_percent").at("mean").get<double>(), 100);
}

TEST(LlamaCppMetrics, PrefillAndDecodeMeansComeFromTheSecondsCountersOverTheRequests) {
  const auto b = summarize_ttft_breakdown(llama_point(), {"http://127.0.0.1:8080/metrics"}, {}, 400, 1500, 8);
  ASSERT_TRUE(b.summary.is_object());
  const auto& all = b.summary.at("roles").at("all");
  EXPECT_EQ(all.at("engine"), "llama.cpp");
  EXPECT_FALSE(all.contains("queue")) << "llama.cpp has no queue time";
  EXPECT_EQ(all.at("prefill").at("source"), "counter");
  EXPECT_EQ(all.at("prefill").at("series"), "llamacpp:prompt_seconds_total");
  EXPECT_NEAR(all.at("prefill").at("mean_ms").get<double>(), 2400.0 / 8, 1e-9);
  EXPECT_NEAR(all.at("decode").at("mean_ms").get<double>(), 8000.0 / 8, 1e-9);
  EXPECT_FALSE(all.at("prefill").contains("p99_ms")) << "a counter has no percentiles";
  EXPECT_NEAR(b.values.at("server_prefill_time_mean_ms"), 300, 1e-9);
  EXPECT_NEAR(b.values.at("server_decode_time_mean_ms"), 1000, 1e-9);
  EXPECT_FALSE(b.values.count("server_prefill_time_p99_ms"));
  EXPECT_FALSE(b.summary.contains("outside_server_mean_ms")) << "without the queue the server's TTFT is unknown";
  const auto text = ttft_breakdown_text(b.summary);
  EXPECT_NE(text.find("prefill (ms, mean from counters):"), std::string::npos) << text;
  EXPECT_NE(text.find("300.00  (8 requests, llama.cpp)"), std::string::npos) << text;
  // No request completed: no mean, rather than a division by zero.
  const auto none = summarize_ttft_breakdown(llama_point(), {"http://127.0.0.1:8080/metrics"}, {}, 0, 0, 0);
  EXPECT_TRUE(none.summary.at("roles").at("all").at("prefill").at("mean_ms").is_null());
  EXPECT_FALSE(none.values.count("server_prefill_time_mean_ms"));
}

TEST(LlamaCppMetrics, RowsOfFeaturesTheServerDoesNotUseAreLeftOut) {
  std::ostringstream off;
  const auto without = llama_summary(llama_point());
  EXPECT_FALSE(without.at("metrics").contains("spec_decode_acceptance_percent")) << "no drafts: no such row";
  write_server_metrics_summary(off, without);
  EXPECT_EQ(off.str().find("spec_decode"), std::string::npos) << off.str();
  EXPECT_EQ(off.str().find(" - / -"), std::string::npos) << off.str();
  // A label longer than the column keeps a space before its value.
  EXPECT_NE(off.str().find("prefix_cache_hit_percent (% mean / max): 3.8 / 4.8"), std::string::npos) << off.str();
  // With speculative decoding the row is there: 300 of 400 drafts accepted.
  std::ostringstream on;
  const auto with = llama_summary(llama_point(400, 300));
  EXPECT_DOUBLE_EQ(with.at("metrics").at("spec_decode_acceptance_percent").at("mean").get<double>(), 75);
  write_server_metrics_summary(on, with);
  EXPECT_NE(on.str().find("spec_decode_acceptance_percent (% mean / max):"), std::string::npos) << on.str();
}

TEST(LlamaCppMetrics, AServerWithoutStageTimesIsSaidInOneLine) {
  const auto text = [](const json& summary) {
    std::ostringstream out;
    write_server_metrics_summary(out, summary);
    return out.str();
  };
  // SGLang's gauges without its queue-time histogram: no stage data.
  scrape_round r;
  endpoint_scrape e;
  e.ok = true;
  e.samples = parse_prometheus_text("sglang:num_running_reqs 3\nsglang:num_queue_reqs 1\n").samples;
  r.endpoints.push_back(e);
  const auto sglang = summarize_server_metrics({r}, {"http://h/metrics"}, 0, 1);
  EXPECT_FALSE(sglang.at("stage_data").get<bool>());
  EXPECT_NE(text(sglang).find("Server stage times: none (sglang publishes no per-request queue, prefill or decode "
                              "time)\n"),
            std::string::npos)
      << text(sglang);
  EXPECT_EQ(text(llama_summary(llama_point())).find("Server stage times: none"), std::string::npos);
}

TEST(MetricsTargets, OneServerNamedTwiceIsRefused) {
  for (const auto& [a, b] : {std::pair{"http://h:8080/metrics", "http://h:8080/metrics"},
                             std::pair{"http://H:8080/metrics", "HTTP://h:8080/metrics/"},
                             std::pair{"http://h/metrics", "http://h:80/metrics"},
                             std::pair{"prefill=https://h/metrics", "decode=https://h:443/metrics"}}) {
    std::vector<std::string> urls = {a, b};
    try {
      (void)split_metrics_roles(urls);
      ADD_FAILURE() << a << " and " << b << " were both kept";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("names one server twice"), std::string::npos) << e.what();
    }
  }
  // Two servers, or two paths of one server, are kept.
  for (const auto& [a, b] :
       {std::pair{"http://h:8080/metrics", "http://h:8081/metrics"}, std::pair{"http://h/metrics", "https://h/metrics"},
        std::pair{"http://h/metrics", "http://h/metrics?model=b"}}) {
    std::vector<std::string> urls = {a, b};
    EXPECT_NO_THROW((void)split_metrics_roles(urls)) << a << " " << b;
  }
  EXPECT_EQ(normalized_metrics_url("HTTP://Host:80"), "http://host/");
  EXPECT_EQ(normalized_metrics_url("http://u:PW@Host:8080/metrics/?x=1"), "http://u:PW@host:8080/metrics?x=1");
  EXPECT_EQ(normalized_metrics_url("http://[::1]:80/metrics"), "http://[::1]/metrics");
}

}  // namespace
}  // namespace ironbench::serve
