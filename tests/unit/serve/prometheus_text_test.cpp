#include "serve/metrics/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "serve/sim/sim_metrics.hpp"

namespace ironbench::serve {
namespace {

TEST(PrometheusText, ReadsSamplesLabelsTypesAndTimestamps) {
  const auto e = parse_prometheus_text(
      "# HELP vllm:num_requests_running Number of requests.\n"
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 7\n"
      "# TYPE http_requests counter\n"
      "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
      "\tmetric_without_labels   3.5e2\r\n"
      "empty_labels{} -1\n");
  ASSERT_EQ(e.samples.size(), 4U);
  EXPECT_EQ(e.rejected_lines, 0U);
  EXPECT_EQ(e.samples[0].name, "vllm:num_requests_running");
  EXPECT_EQ(e.samples[0].value, 7);
  EXPECT_EQ(*e.samples[0].label("engine"), "0");
  EXPECT_EQ(e.samples[0].label("missing"), nullptr);
  EXPECT_EQ(e.samples[0].series_key(), "vllm:num_requests_running{engine=\"0\",model_name=\"m\"}");
  EXPECT_EQ(e.samples[1].value, 1027);
  EXPECT_EQ(e.samples[2].value, 350);
  EXPECT_EQ(e.samples[3].value, -1);
  EXPECT_TRUE(e.samples[3].labels.empty());
  EXPECT_EQ(e.types.at("vllm:num_requests_running"), "gauge");
  EXPECT_EQ(e.types.at("http_requests"), "counter");
}

TEST(PrometheusText, UnescapesLabelValues) {
  const auto e = parse_prometheus_text(R"(m{path="C:\\DIR\\FILE.TXT",msg="say \"hi\"\nbye",odd="a,b}c"} 1)");
  ASSERT_EQ(e.samples.size(), 1U) << e.first_problem;
  EXPECT_EQ(*e.samples[0].label("path"), "C:\\DIR\\FILE.TXT");
  EXPECT_EQ(*e.samples[0].label("msg"), "say \"hi\"\nbye");
  EXPECT_EQ(*e.samples[0].label("odd"), "a,b}c");
}

TEST(PrometheusText, ReadsSpecialValuesHistogramsAndExemplars) {
  const auto e = parse_prometheus_text(
      "a NaN\nb +Inf\nc -Inf\nd +3\n"
      "h_bucket{le=\"0.5\"} 2\nh_bucket{le=\"+Inf\"} 5\nh_sum 1.5\nh_count 5\n"
      "x_total 4 # {trace_id=\"abc\"} 1.0\n# EOF\n");
  ASSERT_EQ(e.samples.size(), 9U) << e.first_problem;
  EXPECT_TRUE(std::isnan(e.samples[0].value));
  EXPECT_EQ(e.samples[1].value, INFINITY);
  EXPECT_EQ(e.samples[2].value, -INFINITY);
  EXPECT_EQ(e.samples[3].value, 3);
  EXPECT_EQ(*e.samples[5].label("le"), "+Inf");
  EXPECT_EQ(e.samples[8].value, 4);
}

TEST(PrometheusText, SkipsLinesItCannotReadAndSaysWhichFirst) {
  const auto e = parse_prometheus_text(
      "good 1\n"
      "9starts_with_digit 1\n"
      "no_value\n"
      "bad_value abc\n"
      "open{a=\"x 1\n"
      "bad_escape{a=\"\\q\"} 1\n"
      "trailing 1 2 3\n"
      "also_good{a=\"b\",} 2\n");
  ASSERT_EQ(e.samples.size(), 2U);
  EXPECT_EQ(e.samples[1].name, "also_good");
  EXPECT_EQ(e.rejected_lines, 6U);
  EXPECT_EQ(e.first_problem, "line 2: a metric name was expected");
}

TEST(PrometheusText, ReadsBackWhatServeSimWrites) {
  sim_metrics_state state;
  state.model = "odd \"model\" \\ name";
  state.running = 3;
  state.waiting = 11;
  state.kv_usage = 0.25;
  state.counters.generation_tokens = 1234;
  state.counters.e2e_latency.add(0.2);
  state.counters.e2e_latency.add(7);
  const auto e = parse_prometheus_text(sim_metrics_text(state));
  EXPECT_EQ(e.rejected_lines, 0U) << e.first_problem;
  std::map<std::string, double> values;
  for (const auto& s : e.samples) {
    EXPECT_EQ(*s.label("model_name"), state.model);
    values[s.name + (s.label("le") ? "@" + *s.label("le") : "")] = s.value;
  }
  EXPECT_EQ(values.at("vllm:num_requests_running"), 3);
  EXPECT_EQ(values.at("vllm:num_requests_waiting"), 11);
  EXPECT_EQ(values.at("vllm:kv_cache_usage_perc"), 0.25);
  EXPECT_EQ(values.at("vllm:generation_tokens_total"), 1234);
  EXPECT_EQ(values.at("vllm:e2e_request_latency_seconds_bucket@0.1"), 0);
  EXPECT_EQ(values.at("vllm:e2e_request_latency_seconds_bucket@0.5"), 1);
  EXPECT_EQ(values.at("vllm:e2e_request_latency_seconds_bucket@10"), 2);
  EXPECT_EQ(values.at("vllm:e2e_request_latency_seconds_bucket@+Inf"), 2);
  EXPECT_EQ(values.at("vllm:e2e_request_latency_seconds_sum"), 7.2);
  EXPECT_EQ(e.types.at("vllm:e2e_request_latency_seconds"), "histogram");
}

// Random corruptions of real expositions (the fuzzer of bench/fuzz_prometheus.sh runs millions
// more): the parser never crashes, and what it returns is well formed.
TEST(PrometheusText, SurvivesCorruptedInput) {
  sim_metrics_state state;
  state.model = "m";
  const std::string seed = sim_metrics_text(state) + "x{a=\"\\\\\\\"\\n\"} NaN 12\n";
  std::mt19937_64 random(7);
  const std::string alphabet = "{}\"\\=, \n\t#+-.eE0123456789aInfNaN_:";
  // Fewer rounds where the parser is sanitized (each is ten times slower there).
  const int rounds = IRONBENCH_SANITIZED_BUILD ? 3000 : 20000;
  for (int round = 0; round < rounds; ++round) {
    std::string text = seed;
    const int edits = 1 + static_cast<int>(random() % 8);
    for (int k = 0; k < edits && !text.empty(); ++k) {
      const auto at = random() % text.size();
      switch (random() % 3) {
        case 0: text[at] = alphabet[random() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + random() % 4); break;
        default: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
      }
    }
    const auto e = parse_prometheus_text(text);
    for (const auto& s : e.samples) {
      ASSERT_FALSE(s.name.empty());
      ASSERT_TRUE(std::isalpha(static_cast<unsigned char>(s.name[0])) || s.name[0] == '_' || s.name[0] == ':');
    }
    ASSERT_EQ(e.rejected_lines == 0, e.first_problem.empty());
  }
}

}  // namespace
}  // namespace ironbench::serve
