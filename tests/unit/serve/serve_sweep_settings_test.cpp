#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "serve/sweep/serve_sweep.hpp"
#include "serve/workload/arrival_schedule.hpp"
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
  const std::string unknown = "--percentile-metrics: unknown metric 'ttlt' (ttft, tpot, itl, e2el, ttst)";
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

// Settings that cannot be meant: a negative warm-up count (which changed the number of
// prompts), a failed share outside 0..1, and schedules that could not end.
TEST(ServeSweepSettings, SettingsThatCannotBeMeantAreUsageErrors) {
  EXPECT_EQ(check_message([](sweep_settings& s) { s.num_warmups = -1; }), "--num-warmups must be 0 or more, not -1");
  for (double share : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_NE(check_message([&](sweep_settings& s) { s.max_failed_share = share; }).find("--max-failed-share"),
              std::string::npos)
        << share;
  }
  EXPECT_EQ(check_message([](sweep_settings& s) { s.max_failed_share = 0; }), "no usage_error");
  EXPECT_EQ(check_message([](sweep_settings& s) { s.max_failed_share = 1; }), "no usage_error");
  const auto slow = check_message([](sweep_settings& s) { s.rates = {1e-300}; });
  EXPECT_NE(slow.find("--request-rate 1e-300"), std::string::npos) << slow;
  EXPECT_NE(slow.find("7 days at most"), std::string::npos) << slow;
  // 1000 requests at 0.002/s take 5.8 days: allowed; 0.001/s, 11.6 days: not.
  EXPECT_EQ(check_message([](sweep_settings& s) { s.rates = {0.002}; }), "no usage_error");
  EXPECT_NE(check_message([](sweep_settings& s) { s.rates = {10, 0.001}; }), "no usage_error");
  EXPECT_NE(check_message([](sweep_settings& s) {
              s.num_prompts_per_concurrency = 100;
              s.concurrencies = {1, 64};
              s.rates = {0.01};
            }),
            "no usage_error");
}

TEST(ArrivalSchedule, AScheduleThatCouldNotEndIsAUsageError) {
  EXPECT_NO_THROW((void)arrival_times(1000, 0.002, 1, 0));
  const auto message = usage_message([] { (void)arrival_times(10, 1e-300, 1, 0); });
  EXPECT_NE(message.find("7 days at most"), std::string::npos) << message;
  // Two requests a mean 30 years apart: the drawn gap, not only the mean, is checked.
  EXPECT_NE(usage_message([] { (void)arrival_times(2, 1e-9, 1, 0); }), "no usage_error");
  EXPECT_NE(usage_message([] { check_schedule_span({0, 1e15}, "a trace"); }), "no usage_error");
  EXPECT_EQ(usage_message([] { check_schedule_span({0, max_schedule_s}, "a trace"); }), "no usage_error");
}

}  // namespace
}  // namespace ironbench::serve
