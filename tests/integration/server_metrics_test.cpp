// ironbench serve scraping serve-sim's Prometheus /metrics while it loads it, both real
// processes on loopback; serve-sim's state log is the ground truth of what /metrics said.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

struct engine_state {
  double t_ns, running, waiting, kv_percent;
};

std::vector<engine_state> read_state_log(const std::string& path) {
  std::vector<engine_state> states;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = json::parse(line);
    states.push_back({j.at("t_ns").get<double>(), j.at("running").get<double>(), j.at("waiting").get<double>(),
                      100.0 * j.at("kv_used").get<double>() / j.at("kv_total").get<double>()});
  }
  return states;
}

// The lowest and highest value of a state field in effect at some moment of [from, to].
std::pair<double, double> range_in(const std::vector<engine_state>& states, double from, double to,
                                   double engine_state::*field) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const double begin = states[i].t_ns;
    const double end = i + 1 < states.size() ? states[i + 1].t_ns : std::numeric_limits<double>::infinity();
    if (end < from || begin > to) continue;
    low = std::min(low, states[i].*field);
    high = std::max(high, states[i].*field);
  }
  return {low, high};
}

json run_serve(const std::vector<std::string>& args, int* exit_code = nullptr) {
  std::vector<std::string> all = {"serve", "--no-save", "--json", "-", "--max-lateness-ms", "1000"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_ironbench(all);
  if (exit_code != nullptr) *exit_code = r.exit_code;
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  return json::parse(r.out);
}

json server_metrics_of(const json& run) {
  const auto& notes = run.at("cases").at(0).at("notes");
  if (!notes.contains("server_metrics")) return nullptr;
  return json::parse(notes.at("server_metrics").get<std::string>());
}

// Requests queue behind 8 sequence slots and a KV cache of 600 tokens, so running, waiting and
// KV use all move; every scraped value must be one the engine really had within the interval
// before the scrape answered.
TEST(ServerMetrics, ScrapedStateIsTheSimulatorsTruthWithinOneInterval) {
  temp_dir dir;
  const auto log = (dir.path() / "state.jsonl").string();
  const double interval_s = 0.1;
  json run;
  {
    sim_process sim({"--decode-base-ms", "15", "--max-num-seqs", "8", "--kv-cache-tokens", "600", "--state-log", log});
    ASSERT_GT(sim.port(), 0);
    run = run_serve({"--base-url", sim.url(), "--num-prompts", "60", "--request-rate", "30", "--random-input-len", "50",
                     "--random-output-len", "20", "--metrics-interval", "100ms"});
  }  // serve-sim has stopped: its state log is complete
  const auto server = server_metrics_of(run);
  ASSERT_TRUE(server.is_object());
  EXPECT_EQ(server.at("engine"), "vllm");
  EXPECT_EQ(server.at("failed_scrapes"), 0);
  const auto states = read_state_log(log);
  ASSERT_GT(states.size(), 10U);
  const auto& timeline = server.at("timeline");
  const auto& t_s = timeline.at("t_s");
  ASSERT_GE(t_s.size(), 10U);
  const double origin = server.at("origin_monotonic_ns").get<double>();
  const std::vector<std::pair<const char*, double engine_state::*>> fields = {
      {"running_requests", &engine_state::running},
      {"waiting_requests", &engine_state::waiting},
      {"kv_cache_usage_percent", &engine_state::kv_percent}};
  for (const auto& [name, field] : fields) {
    const auto& values = timeline.at(name);
    double highest = 0;
    for (std::size_t i = 0; i < t_s.size(); ++i) {
      const double at = origin + t_s.at(i).get<double>() * 1e9;
      const auto [low, high] = range_in(states, at - interval_s * 1e9, at, field);
      const double v = values.at(i).get<double>();
      EXPECT_GE(v, low - 1e-9) << name << " at scrape " << i;
      EXPECT_LE(v, high + 1e-9) << name << " at scrape " << i;
      highest = std::max(highest, v);
    }
    EXPECT_GT(highest, 0) << name << " never moved: the test would prove nothing";
  }
  // The counters' increases over the point are exactly what the client sent and received.
  const auto point = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
  EXPECT_EQ(point.at("server_generation_tokens_increase").get<double>(), point.at("total_output_tokens").get<double>());
  EXPECT_EQ(point.at("server_prompt_tokens_increase").get<double>(), point.at("total_input_tokens").get<double>());
  EXPECT_EQ(point.at("server_running_requests_max").get<double>(), 8);
  // The timeline the report draws: client throughput windows and the server's series.
  const auto& series = run.at("cases").at(0).at("series");
  EXPECT_EQ(series.at("server_t_s").size(), t_s.size());
  EXPECT_EQ(series.at("server_running_requests").size(), t_s.size());
  double tokens = 0;
  const auto& rate = series.at("client_output_tokens_per_s");
  const auto& ends = series.at("client_t_s");
  ASSERT_EQ(rate.size(), ends.size());
  for (std::size_t i = 0; i < rate.size(); ++i) {
    const double begin = i == 0 ? 0 : ends.at(i - 1).get<double>();
    tokens += rate.at(i).get<double>() * (ends.at(i).get<double>() - begin);
  }
  EXPECT_NEAR(tokens, point.at("total_output_tokens").get<double>(), 1e-6);
}

TEST(ServerMetrics, AServerWithoutMetricsIsReportedAndTheRunStillMeasures) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto r = run_ironbench({"serve", "--no-save", "--base-url", sim.url(), "--num-prompts", "5",
                                "--random-input-len", "8", "--random-output-len", "4", "--metrics-url",
                                sim.url() + "/no-metrics-here", "--max-lateness-ms", "1000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Server metrics: none (GET " + sim.url() + "/no-metrics-here: HTTP 404)"), std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(Successful requests:\s+5\s)"))) << r.out;
}

TEST(ServerMetrics, NoServerMetricsScrapesNothing) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto run = run_serve({"--base-url", sim.url(), "--num-prompts", "3", "--random-input-len", "8",
                              "--random-output-len", "4", "--no-server-metrics"});
  EXPECT_TRUE(server_metrics_of(run).is_null());
  for (const auto& m : run.at("cases").at(0).at("metrics")) {
    EXPECT_NE(m.at("name").get<std::string>().rfind("server_", 0), 0U) << m.dump();
  }
}

TEST(ServerMetrics, BadMetricsFlagsAreUsageErrors) {
  for (const auto& [flag, value, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--metrics-url", "ftp://127.0.0.1/metrics", "--metrics-url must start with http:// or https://"},
           {"--metrics-interval", "1ms", "--metrics-interval must be at least 50ms"},
           {"--metrics-interval", "soon", "--metrics-interval"}}) {
    const auto r = run_ironbench({"serve", "--no-save", "--num-prompts", "1", flag, value});
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  // One server named twice would have its counters, and so every request, counted twice.
  const auto twice =
      run_ironbench({"serve", "--no-save", "--num-prompts", "1", "--metrics-url", "http://127.0.0.1:8000/metrics",
                     "--metrics-url", "http://127.0.0.1:8000/metrics/"});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_EQ(twice.err,
            "ironbench: error: --metrics-url names one server twice ('http://127.0.0.1:8000/metrics' and "
            "'http://127.0.0.1:8000/metrics/'): its counters would be added twice; give each server once\n");
}

}  // namespace
}  // namespace ironbench::testing
