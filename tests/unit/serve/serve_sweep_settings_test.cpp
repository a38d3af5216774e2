#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "serve/serve_sweep.hpp"
#include "usage_message.hpp"

namespace ironbench::serve {
namespace {

sweep_settings good_settings() {
  sweep_settings s;
  s.load.base_urls = {"http://127.0.0.1:8000"};
  return s;
}

// The usage_error message a call throws ("no usage_error" when it throws none).
using testing::usage_message;

std::string check_message(const std::function<void(sweep_settings&)>& change) {
  auto s = good_settings();
  change(s);
  return usage_message([&] { check_sweep_settings(s); });
}

TEST(ServeSweepSettings, DefaultsPass) {
  EXPECT_EQ(check_message([](sweep_settings&) {}), "no usage_error");
  EXPECT_EQ(check_message([](sweep_settings& s) {
              s.dataset_name = "custom";
              s.dataset_path = "prompts.jsonl";
            }),
            "no usage_error");
}

TEST(ServeSweepSettings, BaseUrlsNeedAnHttpSchemeAndLoseTrailingSlashes) {
  std::vector<std::string> urls = {"http://a:1//", "https://b"};
  normalize_base_urls(urls);
  EXPECT_EQ(urls, (std::vector<std::string>{"http://a:1", "https://b"}));
  std::vector<std::string> bad = {"ftp://a/"};
  EXPECT_EQ(usage_message([&] { normalize_base_urls(bad); }),
            "--base-url must start with http:// or https:// ('ftp://a')");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.load.base_urls = {"localhost:8000"}; }),
            "--base-url must start with http:// or https:// ('localhost:8000')");
}

TEST(ServeSweepSettings, BalanceAndReceiveTimeTakeTheirWords) {
  EXPECT_EQ(parse_balance("round-robin"), balance_policy::round_robin);
  EXPECT_EQ(parse_balance("least-outstanding"), balance_policy::least_outstanding);
  EXPECT_EQ(usage_message([] { (void)parse_balance("random"); }),
            "--balance takes round-robin or least-outstanding, not 'random'");
  EXPECT_TRUE(parse_receive_time("kernel"));
  EXPECT_FALSE(parse_receive_time("read"));
  EXPECT_EQ(usage_message([] { (void)parse_receive_time("user"); }), "--receive-time takes kernel or read, not 'user'");
}

TEST(ServeSweepSettings, PercentileMetricsAndPercentiles) {
  const auto selection = parse_metric_selection("ttft,,e2el", "50,99.9");
  EXPECT_EQ(selection.metrics, (std::vector<std::string>{"ttft", "e2el"}));
  EXPECT_EQ(selection.percentiles, (std::vector<double>{50, 99.9}));
  const std::string unknown = "--percentile-metrics: unknown metric 'ttlt' (ttft, tpot, itl, e2el)";
  EXPECT_EQ(usage_message([] { (void)parse_metric_selection("ttft,ttlt", "99"); }), unknown);
  EXPECT_EQ(check_message([](sweep_settings& s) { s.selection.metrics = {"ttlt"}; }), unknown);
  const std::string range = "--metric-percentiles must be between 0 and 100";
  EXPECT_EQ(usage_message([] { (void)parse_metric_selection("ttft", "50,100"); }), range);
  EXPECT_EQ(check_message([](sweep_settings& s) { s.selection.percentiles = {0}; }), range);
  EXPECT_NE(usage_message([] { (void)parse_metric_selection("ttft", "fifty"); }), "no usage_error");
}

TEST(ServeSweepSettings, RatesAndConcurrencies) {
  const auto rates = parse_sweep_values("1,2.5,inf", "--request-rate");
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_TRUE(std::isinf(rates[2]));
  EXPECT_NE(usage_message([] { (void)parse_sweep_values("1,,2", "--request-rate"); }), "no usage_error");
  const std::string rate = "--request-rate must be positive or inf";
  EXPECT_EQ(check_message([](sweep_settings& s) { s.rates = {1, 0}; }), rate);
  EXPECT_EQ(check_message([](sweep_settings& s) { s.rates = {-2}; }), rate);
  const std::string whole = "--max-concurrency takes whole numbers";
  EXPECT_EQ(check_message([](sweep_settings& s) { s.concurrencies = {-1}; }), whole);
  EXPECT_EQ(check_message([](sweep_settings& s) { s.concurrencies = {1.5}; }), whole);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(check_message([&](sweep_settings& s) { s.concurrencies = {inf}; }), whole);
  EXPECT_EQ(check_message([](sweep_settings& s) { s.num_prompts = 0; }), "--num-prompts must be at least 1");
}

TEST(ServeSweepSettings, DatasetIsKnownAndHasItsPath) {
  EXPECT_EQ(
      check_message([](sweep_settings& s) { s.dataset_name = "sonnet"; }),
      "--dataset-name 'sonnet' is not available (random, sharegpt, custom, prefix_repetition, conversation, trace)");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.dataset_name = "custom"; }),
            "--dataset-name custom needs --dataset-path");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.dataset_name = "sharegpt"; }),
            "--dataset-name sharegpt needs --dataset-path");
}

TEST(ServeSweepSettings, HeadersCertificatesAndTokenizer) {
  EXPECT_EQ(check_message([](sweep_settings& s) { s.load.headers = {"X-Trace"}; }),
            "--header takes 'Name: value', not 'X-Trace'");
  // A line break would send a header of its own; the value is not repeated (it may be a secret).
  const std::string injected =
      "--header: a header may not hold a line break (CR or LF) or a NUL byte: it would add headers of its own";
  for (const auto& header : std::vector<std::string>{"X-Trace: a\r\nX-Injected: 1", "X-Trace: a\nb", "X-Trace: a\rb",
                                                     std::string("X-Trace: a\0b", 12)}) {
    EXPECT_EQ(check_message([&](sweep_settings& s) { s.load.headers = {"Accept: */*", header}; }), injected);
  }
  EXPECT_EQ(check_message([](sweep_settings& s) { s.load.headers = {"X Trace: a"}; }),
            "--header: 'X Trace' is not a header name (letters, digits and !#$%&'*+-.^_`|~, before the colon)");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.load.headers = {": a"}; }),
            "--header: '' is not a header name (letters, digits and !#$%&'*+-.^_`|~, before the colon)");
  EXPECT_EQ(check_message([](sweep_settings& s) {
              s.load.headers = {"X-Trace-Id_2:abc", "Authorization: Bearer k"};
            }),
            "no usage_error");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.load.max_response_bytes = -1; }),
            "--max-response-bytes must not be negative (0: no limit)");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.load.ca_file = "/nonexistent/ca.pem"; }),
            "--ca-cert takes a file of PEM certificates: /nonexistent/ca.pem not found");
  const std::string tokenizer = "--tokenizer takes a tokenizer.json file (or a directory holding one): ";
  EXPECT_EQ(check_message([](sweep_settings& s) { s.tokenizer = "/nonexistent/tokenizer.json"; }),
            tokenizer + "/nonexistent/tokenizer.json not found");
  const auto dir = std::filesystem::temp_directory_path() / "ironbench_serve_no_tokenizer";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(check_message([&](sweep_settings& s) { s.tokenizer = dir.string(); }),
            tokenizer + (dir / "tokenizer.json").string() + " not found");
}

TEST(ServeSweepSettings, RunSweepChecksBeforeSending) {
  auto s = good_settings();
  s.num_prompts = 0;
  EXPECT_EQ(usage_message([&] { (void)run_sweep(s, nullptr, {}); }), "--num-prompts must be at least 1");
}

}  // namespace
}  // namespace ironbench::serve
