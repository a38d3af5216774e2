// ironbench serve replaying a request trace against serve-sim (real processes on loopback),
// with serve-sim's request log as the server's record of when each request arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// A Mooncake trace: Poisson arrivals at `rate`, prefix blocks shared by every seventh request.
std::vector<double> write_trace(const std::string& path, std::size_t count, double rate) {
  std::mt19937_64 random(3);
  std::exponential_distribution<double> gap(rate);
  std::uniform_int_distribution<int> input(20, 200), output(4, 12);
  std::ofstream out(path);
  std::vector<double> times;
  double t = 0.5;
  for (std::size_t i = 0; i < count; ++i) {
    t += gap(random);
    times.push_back(t);
    out << json{{"timestamp", t * 1e3},
                {"input_length", input(random)},
                {"output_length", output(random)},
                {"hash_ids", {i % 7, 1000 + i}}}
               .dump()
        << "\n";
  }
  return times;
}

// Arrival times (s, CLOCK_MONOTONIC) and prompt lengths of serve-sim's request log, in arrival order.
std::vector<std::pair<double, std::int64_t>> arrivals(const std::string& log) {
  std::vector<std::pair<double, std::int64_t>> out;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = json::parse(line);
    out.emplace_back(j.at("arrived_ns").get<double>() * 1e-9, j.at("prompt_tokens").get<std::int64_t>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string fmt_ms(double ms) {
  std::ostringstream out;
  out << ms;
  return out.str();
}

process_result replay(const sim_process& sim, const std::string& trace, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {
      "serve",          "--no-save", "--base-url",          sim.url(), "--dataset-name", "trace",
      "--dataset-path", trace,       "--progress-interval", "0",       "--json",         "-"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_ironbench(args);
}

// |server arrival - trace time| after the constant offset (the median) is taken out, p99 in ms.
double p99_error_ms(const std::vector<std::pair<double, std::int64_t>>& got, const std::vector<double>& want,
                    double speed) {
  std::vector<double> offsets, errors;
  for (std::size_t i = 0; i < want.size(); ++i) {
    offsets.push_back((got[i].first - got[0].first) - (want[i] - want[0]) / speed);
  }
  auto sorted = offsets;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  for (const double o : offsets) errors.push_back(std::fabs(o - median) * 1e3);
  std::sort(errors.begin(), errors.end());
  return errors[static_cast<std::size_t>(0.99 * static_cast<double>(errors.size() - 1))];
}

// 300 requests of a Poisson trace at 100 requests/s (10 ms mean gaps, 0.1 ms the shortest): the
// server receives every request, each at its trace time after the replay's start. Exact: every
// request arrives, the client's schedule is the trace's. Timed: the p99 of |arrival - trace
// time| (the constant offset taken out) and the client's own p99 send lateness, against
// tolerances measured on a loaded machine (docs/testing.md, "Tests that judge time"): on an idle
// machine both stay under a millisecond.
constexpr double trace_arrival_p99_ms = 21.0;
constexpr double trace_lateness_p99_ms = 18.0;

TEST(ServeTimed, ATraceArrivesAtItsTimesAt100RequestsPerSecond) {
#if IRONBENCH_SANITIZED_BUILD
  GTEST_SKIP() << "timing exactness is judged in the release build: sanitizers slow the client and the server";
#endif
  temp_dir dir;
  const auto trace = (dir.path() / "trace.jsonl").string();
  const auto times = write_trace(trace, 300, 100);
  const auto log = (dir.path() / "requests.jsonl").string();
  const auto results = (dir.path() / "results").string();
  {
    sim_process sim({"--request-log", log});
    ASSERT_GT(sim.port(), 0);
    // The client judges its own lateness against the same tolerance: the point stays VALID
    // (exit 0) where its p99 lateness is within it.
    const auto r = replay(sim, trace,
                          {"--num-prompts", "300", "--max-lateness-ms", fmt_ms(trace_lateness_p99_ms), "--save-result",
                           "--save-detailed", "--result-dir", results, "--result-filename", "r.json"});
    const auto run = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(run.is_discarded()) << r.err;
    const auto point = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
    EXPECT_EQ(point.at("completed"), 300);
    expect_time_not_above("client p99 send lateness", point.at("client").at("send_lateness_p99_ms").get<double>(), 0,
                          trace_lateness_p99_ms);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  // The schedule the client kept is the trace's, exactly.
  std::ifstream in(results + "/r.json.requests.jsonl");
  std::vector<double> scheduled;
  for (std::string line; std::getline(in, line);)
    scheduled.push_back(json::parse(line).at("scheduled_s").get<double>());
  ASSERT_EQ(scheduled.size(), times.size());
  for (std::size_t i = 0; i < times.size(); ++i) EXPECT_NEAR(scheduled[i], times[i] - times[0], 1e-9) << i;
  // What the server saw: every request, at its time.
  const auto got = arrivals(log);
  ASSERT_EQ(got.size(), 300U);
  expect_time_not_above("p99 |server arrival - trace time|", p99_error_ms(got, times, 1), 0, trace_arrival_p99_ms);
}

TEST(ServeTrace, TwoReplaysSendTheSameRequestsAtTheSameTimesAndSpeedScalesThem) {
  temp_dir dir;
  const auto trace = (dir.path() / "trace.jsonl").string();
  const auto times = write_trace(trace, 40, 200);
  std::vector<std::vector<std::int64_t>> prompts;
  std::vector<json> schedules;
  std::vector<std::int64_t> sent_lengths;  // every replay's, one after the other
  for (const char* speed : {"1", "1", "2"}) {
    const auto log = (dir.path() / (std::string("log-") + std::to_string(prompts.size()))).string();
    const auto results = (dir.path() / (std::string("r-") + std::to_string(prompts.size()))).string();
    {
      sim_process sim({"--request-log", log});
      ASSERT_GT(sim.port(), 0);
      const auto r = replay(sim, trace,
                            {"--trace-speed", speed, "--max-lateness-ms", "1000", "--save-result", "--save-detailed",
                             "--result-dir", results, "--result-filename", "r.json"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    // What the server received (as a multiset: two requests sent a moment apart may be read
    // in either order).
    std::vector<std::int64_t> lengths;
    for (const auto& [at, length] : arrivals(log)) lengths.push_back(length);
    std::sort(lengths.begin(), lengths.end());
    prompts.push_back(lengths);
    // What the client sent, in schedule order: when, and which prompt.
    json schedule = json::array();
    std::ifstream in(results + "/r.json.requests.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      const auto record = json::parse(line);
      schedule.push_back(record.at("scheduled_s"));
      sent_lengths.push_back(record.at("prompt_len").get<std::int64_t>());
    }
    schedules.push_back(schedule);
  }
  EXPECT_EQ(prompts[0], prompts[1]);
  ASSERT_EQ(sent_lengths.size(), 3 * times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(sent_lengths[i], sent_lengths[times.size() + i]) << "request " << i << " of both replays";
  }
  EXPECT_EQ(schedules[0], schedules[1]) << "the same trace, the same schedule";
  ASSERT_EQ(schedules[2].size(), times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_NEAR(schedules[0][i].get<double>(), times[i] - times[0], 1e-9);
    EXPECT_NEAR(schedules[2][i].get<double>(), (times[i] - times[0]) / 2, 1e-9) << "--trace-speed 2";
  }
}

TEST(ServeTrace, BadTracesAndFlagsAreUsageErrors) {
  temp_dir dir;
  const auto path = (dir.path() / "bad.jsonl").string();
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 3}\nnot json\n", "line 2: not a JSON object"},
           {"{\"input_length\": 5, \"output_length\": 3}\n", "line 1: no arrival time"},
           {"{\"time_s\": 2, \"input_len\": 5, \"output_len\": 3}\n{\"time_s\": 1, \"input_len\": 5, \"output_len\": "
            "3}\n",
            "line 2: arrival times must not go backwards"},
           {"{\"time_s\": 0, \"input_len\": 0, \"output_len\": 3}\n", "'input_len' must be a positive whole number"},
           {"", "the trace has no request"}}) {
    std::ofstream(path) << text;
    const auto r = run_ironbench({"serve", "--no-save", "--dataset-name", "trace", "--dataset-path", path});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  std::ofstream(path) << "{\"time_s\": 0, \"input_len\": 5, \"output_len\": 3}\n";
  auto r =
      run_ironbench({"serve", "--no-save", "--dataset-name", "trace", "--dataset-path", path, "--request-rate", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--request-rate does not apply to --dataset-name trace"), std::string::npos) << r.err;
  r = run_ironbench({"serve", "--no-save", "--dataset-name", "trace", "--dataset-path", path, "--trace-speed", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trace-speed must be positive"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ironbench::testing
