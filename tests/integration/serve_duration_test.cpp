// Points bounded by time and ramp-ups against serve-sim (real processes on loopback):
// --duration's request count as an outcome, the grace period and the requests it leaves
// unfinished, --num-prompts capping a point before its duration, a ramp-up recorded in the
// saved result, each point's prompt seed in its --save-result file (reproducing the point), and
// the flags' bad values. The *Timed suite judges wall-clock time (docs/testing.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

std::vector<std::string> timed_args(const std::string& url, const std::vector<std::string>& extra,
                                    const std::string& seed = "3") {
  std::vector<std::string> args = {"serve",
                                   "--no-save",
                                   "--json",
                                   "-",
                                   "--progress-interval",
                                   "0",
                                   "--max-lateness-ms",
                                   "1000",
                                   "--base-url",
                                   url,
                                   "--random-input-len",
                                   "16",
                                   "--seed",
                                   seed};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

json point_result(const process_result& r) {
  const auto run = json::parse(r.out);
  return json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
}

json read_file_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// 20 requests/s for 1.5 s, each answer 50 tokens at 8 ms a step (0.4 s): about 8 are in flight
// when the duration ends, and a grace period of 50 ms leaves most of them unfinished.
TEST(ServeDurationTimed, PointSendsForItsDurationAndEndsWithinTheGracePeriod) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_ironbench(timed_args(sim.url(), {"--random-output-len", "50", "--request-rate", "20", "--duration",
                                                      "1.5s", "--grace-period", "50ms"}));
  const double wall_s = seconds_since(start);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = point_result(r);
  EXPECT_EQ(p.at("duration_s"), 1.5);
  EXPECT_EQ(p.at("grace_period_s"), 0.05);
  EXPECT_EQ(p.at("ended_by"), "duration");
  // The count is an outcome: a Poisson 20/s over 1.5 s (30 expected; its fixed seed drew it).
  const auto sent = p.at("requests_sent").get<int>();
  EXPECT_GE(sent, 12);
  EXPECT_LE(sent, 50);
  EXPECT_EQ(p.at("num_prompts"), sent);
  // Unfinished requests are counted as such, apart from the completed and failed.
  const auto unfinished = p.at("unfinished_requests").get<int>();
  EXPECT_GT(unfinished, 0);
  EXPECT_EQ(p.at("completed").get<int>() + p.at("failed").get<int>() + unfinished, sent);
  EXPECT_EQ(p.at("failed"), 0);
  EXPECT_NE(r.err.find("unfinished after the 0.05 s grace period"), std::string::npos) << r.err;
  // The whole command (process start, the point, its report) within the duration and grace
  // period, with room for a loaded 2-core machine; the point itself ran at least its duration.
  EXPECT_GE(wall_s, 1.5);
  expect_time_not_above("serve --duration 1.5s --grace-period 50ms: command wall time", wall_s, 1.55, 3.0, "s");
}

// --num-prompts caps: 6 requests two at a time end long before a 60 s duration.
TEST(ServeDurationTimed, NumPromptsCapsAPointBeforeItsDuration) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_ironbench(timed_args(
      sim.url(), {"--random-output-len", "4", "--max-concurrency", "2", "--duration", "60s", "--num-prompts", "6"}));
  const double wall_s = seconds_since(start);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = point_result(r);
  EXPECT_EQ(p.at("ended_by"), "num_prompts");
  EXPECT_EQ(p.at("requests_sent"), 6);
  EXPECT_EQ(p.at("completed"), 6);
  EXPECT_EQ(p.at("unfinished_requests"), 0);
  expect_time_not_above("serve --duration 60s --num-prompts 6: command wall time", wall_s, 0, 20.0, "s");
}

// Without --duration a point sends its --num-prompts and records no time bound.
TEST(ServeDuration, WithoutDurationAPointRecordsNoTimeBound) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto r = run_ironbench(timed_args(sim.url(), {"--random-output-len", "4", "--num-prompts", "5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = point_result(r);
  EXPECT_EQ(p.at("num_prompts"), 5);
  EXPECT_FALSE(p.contains("duration_s"));
  EXPECT_FALSE(p.contains("unfinished_requests"));
  EXPECT_FALSE(p.contains("ramp_up_strategy"));
  EXPECT_FALSE(p.at("steady_state").contains("ramp_up"));
}

// A linear ramp from 20 to 80 requests/s over 24 requests, saved: the ramp in the result file
// (vLLM's keys, request_rate inf), the steady-state window marked as over the ramp, and the
// sends speeding up (the gaps of the last third shorter than those of the first).
TEST(ServeDuration, RampUpIsRecordedInTheSavedResult) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const temp_dir dir;
  const auto r = run_ironbench(timed_args(
      sim.url(), {"--random-output-len", "2", "--num-prompts", "24", "--ramp-up-strategy", "linear",
                  "--ramp-up-start-rps", "20", "--ramp-up-end-rps", "80", "--burstiness", "1000", "--save-result",
                  "--save-detailed", "--result-dir", dir.str(), "--result-filename", "ramp.json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ramping up (linear) from 20 to 80"), std::string::npos) << r.err;
  const auto saved = read_file_json(dir / "ramp.json");
  EXPECT_EQ(saved.at("ramp_up_strategy"), "linear");
  EXPECT_EQ(saved.at("ramp_up_start_rps"), 20);
  EXPECT_EQ(saved.at("ramp_up_end_rps"), 80);
  EXPECT_EQ(saved.at("request_rate"), "inf");
  EXPECT_EQ(saved.at("completed"), 24);
  const auto p = point_result(r);
  EXPECT_EQ(p.at("steady_state").at("ramp_up").at("strategy"), "linear");
  // The schedule the sends followed (each request's scheduled_s in the .requests.jsonl file):
  // gaps near 1/20 s at the start, near 1/80 s at the end.
  std::vector<double> scheduled;
  std::ifstream lines(dir / "ramp.json.requests.jsonl");
  for (std::string line; std::getline(lines, line);) scheduled.push_back(json::parse(line).at("scheduled_s"));
  ASSERT_EQ(scheduled.size(), 24U);
  std::sort(scheduled.begin(), scheduled.end());
  const double first = (scheduled.at(8) - scheduled.at(0)) / 8;
  const double last = (scheduled.at(23) - scheduled.at(15)) / 8;
  EXPECT_GT(first, 1.5 * last) << first << " " << last;
}

// Each point's prompt seed is in its --save-result file, and --seed of that value sends the
// same prompts again (their identities, --save-detailed's prompt_hashes), where the other
// point's seed sends others.
TEST(ServeDuration, SavedPromptSeedReproducesThePoint) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const temp_dir sweep, again;
  const std::vector<std::string> save = {
      "--save-result", "--save-detailed", "--random-output-len", "2", "--num-prompts", "4"};
  auto args = timed_args(sim.url(), save);
  args.insert(args.end(), {"--max-concurrency", "1,2", "--result-dir", sweep.str()});
  const auto r = run_ironbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json points[2];
  for (const auto& entry : std::filesystem::directory_iterator(sweep.path())) {
    if (entry.path().extension() != ".json") continue;
    const auto j = read_file_json(entry.path());
    points[j.at("max_concurrency").get<int>() - 1] = j;
  }
  ASSERT_TRUE(points[0].is_object() && points[1].is_object());
  EXPECT_EQ(points[0].at("prompt_seed"), 3);  // the first point keeps --seed
  const auto seed = points[1].at("prompt_seed").get<std::uint64_t>();
  EXPECT_NE(seed, 3U);
  EXPECT_NE(points[0].at("prompt_hashes"), points[1].at("prompt_hashes"));
  auto repeat = timed_args(sim.url(), save, std::to_string(seed));
  repeat.insert(repeat.end(), {"--result-dir", again.str(), "--result-filename", "again.json"});
  const auto r2 = run_ironbench(repeat);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const auto reproduced = read_file_json(again / "again.json");
  EXPECT_EQ(reproduced.at("prompt_seed"), seed);
  EXPECT_EQ(reproduced.at("prompt_hashes"), points[1].at("prompt_hashes"));
}

// Bad values: one line, exit 2, before anything is sent (no server needed).
TEST(ServeDuration, BadTimeBoundAndRampFlagsAreUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {"--duration", "0"},
      {"--duration", "-5s"},
      {"--duration", "soon"},
      {"--duration", "200h"},
      {"--grace-period", "5s"},
      {"--duration", "5s", "--grace-period", "-1"},
      {"--duration", "5s", "--grace-period", "200h"},
      {"--ramp-up-strategy", "cubic", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "2"},
      {"--ramp-up-strategy", "linear"},
      {"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "2"},
      {"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "5", "--ramp-up-end-rps", "2"},
      {"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "one", "--ramp-up-end-rps", "2"},
      {"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "2", "--request-rate", "5"},
  };
  for (const auto& flags : bad) {
    std::vector<std::string> args = {"serve", "--no-save", "--base-url", "http://127.0.0.1:9"};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto r = run_ironbench(args);
    std::string typed;
    for (const auto& f : flags) typed += f + " ";
    EXPECT_EQ(r.exit_code, 2) << typed << r.err;
    EXPECT_EQ(r.err.rfind("ironbench: error: ", 0), 0U) << typed << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << typed << r.err;
  }
}

}  // namespace
}  // namespace ironbench::testing
