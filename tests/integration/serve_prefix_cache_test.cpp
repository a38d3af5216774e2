// Comparable sweep points against serve-sim's prefix cache (real processes on loopback): by
// default each point sends prompts of its own, so a server that caches prefixes serves none
// of a later point from an earlier one's; with --reuse-prompts it does, and the point says so
// (the server's hit share, a warning, a note). A server with no cache gives no warning.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// Two points (max concurrency 1 and 2) of 6 prompts of 64 random token ids, 2 output tokens,
// the server's /metrics scraped every 0.1 s. stderr holds the console (--json -).
process_result prefix_sweep(const std::string& url, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"serve",
                                   "--no-save",
                                   "--json",
                                   "-",
                                   "--max-lateness-ms",
                                   "1000",
                                   "--progress-interval",
                                   "0",
                                   "--base-url",
                                   url,
                                   "--random-input-len",
                                   "64",
                                   "--random-output-len",
                                   "2",
                                   "--num-prompts",
                                   "6",
                                   "--max-concurrency",
                                   "1,2",
                                   "--metrics-interval",
                                   "0.1s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_ironbench(args);
}

const json* prefix_case_metric(const json& c, const std::string& name) {
  for (const auto& m : c.at("metrics")) {
    if (m.at("name") == name) return &m.at("value");
  }
  return nullptr;
}

double prefix_hit_percent(const json& c) {
  const auto* v = prefix_case_metric(c, "server_prefix_cache_hit_percent_mean");
  EXPECT_NE(v, nullptr) << c.dump(1);
  return v != nullptr ? v->get<double>() : -1;
}

double point_median_ttft_ms(const json& c) {
  const auto result = json::parse(c.at("notes").at("result").get<std::string>());
  return result.at("median_ttft_ms").get<double>();
}

// Prefill 1,000 tokens/s: a cold 64-token prompt takes 64 ms to prefill, a cached one 1 ms.
const std::vector<std::string> prefix_cached_server = {"--prefix-cache-window", "600s", "--prefill-tokens-per-s",
                                                       "1000"};

TEST(ServePrefixCache, EachPointGetsPromptsOfItsOwnAndTheCacheServesNoneOfThem) {
  sim_process sim(prefix_cached_server);
  ASSERT_GT(sim.port(), 0);
  const auto r = prefix_sweep(sim.url());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  EXPECT_EQ(run.at("settings").at("prompts_per_point"), "fresh");
  const auto& cases = run.at("cases");
  ASSERT_EQ(cases.size(), 2U);
  // The first point keeps --seed (0); the second draws its own.
  EXPECT_EQ(cases.at(0).at("notes").at("prompt_seed"), "0");
  EXPECT_NE(cases.at(1).at("notes").at("prompt_seed"), "0");
  for (const auto& c : cases) {
    // Random ids from a 31,900-word vocabulary: no 16-token block of one point is another's.
    EXPECT_EQ(prefix_hit_percent(c), 0) << c.dump(1);
    EXPECT_FALSE(c.at("notes").contains("prefix_cache")) << c.dump(1);
  }
  EXPECT_FALSE(run.at("settings").contains("prefix_cache_warnings"));
  EXPECT_EQ(r.err.find("prefix cache (more than"), std::string::npos) << r.err;
}

TEST(ServePrefixCacheTimed, ReusedPromptsAreServedFromTheCacheAndThePointIsWarnedOf) {
  sim_process sim(prefix_cached_server);
  ASSERT_GT(sim.port(), 0);
  const auto r = prefix_sweep(sim.url(), {"--reuse-prompts"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  EXPECT_EQ(run.at("settings").at("prompts_per_point"), "reused");
  const auto& cases = run.at("cases");
  ASSERT_EQ(cases.size(), 2U);
  EXPECT_EQ(cases.at(1).at("notes").at("prompt_seed"), "0");
  // Point 1 prefilled every prompt; point 2 found 4 whole blocks of each, less the last token
  // (always prefilled): 63 of 64.
  EXPECT_EQ(prefix_hit_percent(cases.at(0)), 0);
  EXPECT_DOUBLE_EQ(prefix_hit_percent(cases.at(1)), 100.0 * 63 / 64);
  EXPECT_FALSE(cases.at(0).at("notes").contains("prefix_cache"));
  ASSERT_TRUE(cases.at(1).at("notes").contains("prefix_cache")) << cases.at(1).dump(1);
  const auto warnings = run.at("settings").at("prefix_cache_warnings");
  ASSERT_EQ(warnings.size(), 1U) << warnings.dump();
  EXPECT_EQ(warnings.at(0).at("point"), 1);
  EXPECT_NE(r.err.find("warning: 98.4 % of the prompt tokens were served from the server's prefix cache"),
            std::string::npos)
      << r.err;
  // The cache is cheaper: a cached prompt skips 63 ms of prefill. Half of that is the margin.
  expect_time_not_above("median TTFT of the cached point below the cold one's less 31.5 ms",
                        point_median_ttft_ms(cases.at(1)), point_median_ttft_ms(cases.at(0)) - 63, 31.5);
}

TEST(ServePrefixCache, AServerWithoutACacheIsNeverWarnedOf) {
  sim_process sim;  // no prefix cache: queried, never hit
  ASSERT_GT(sim.port(), 0);
  const auto r = prefix_sweep(sim.url(), {"--reuse-prompts"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  for (const auto& c : run.at("cases")) {
    EXPECT_EQ(prefix_hit_percent(c), 0);
    EXPECT_FALSE(c.at("notes").contains("prefix_cache"));
  }
  EXPECT_FALSE(run.at("settings").contains("prefix_cache_warnings"));
}

}  // namespace
}  // namespace ironbench::testing
