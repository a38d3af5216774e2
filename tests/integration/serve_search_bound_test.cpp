// The SLO search bounded by time, against serve-sim (real processes on loopback): the
// capacity estimate lands where serve-sim's step model puts the capacity, every probe is its
// duration of requests at its load, and the whole search ends within the bound it printed
// before its first probe.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// Four sequence slots, 8 prompt and 8 output tokens: once requests queue, every engine step
// decodes 4 sequences and admits 4 / 8 of a request (8 prompt tokens each), so a step lasts
// 5 ms + 4 x 0.05 ms + 0.5 x 8 / 50000 s, and 4 requests end every 8 steps.
constexpr double slots = 4, output = 8, prompt = 8;
constexpr double step_s = 0.005 + slots * 0.00005 + (slots / output) * prompt / 50000;
constexpr double predicted_capacity = slots / (output * step_s);  // 94.7 requests/s
// The estimate's documented tolerance (docs/serving-metrics.md, "SLO search").
constexpr double estimate_tolerance = 0.15;
// How far below the step model a loaded machine's estimate may read (docs/testing.md, "Tests
// that judge time").
constexpr double estimate_low_percent = 65;

TEST(ServeSearchBoundTimed, TheEstimateSeedsASearchThatEndsWithinItsPrintedBound) {
  sim_process sim({"--max-num-seqs", "4", "--decode-base-ms", "5"});
  ASSERT_GT(sim.port(), 0);
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_ironbench({"serve",
                                "--no-save",
                                "--json",
                                "-",
                                "--max-lateness-ms",
                                "1000",
                                "--progress-interval",
                                "0",
                                "--base-url",
                                sim.url(),
                                "--random-input-len",
                                "8",
                                "--random-output-len",
                                "8",
                                "--slo",
                                "ttft:50",
                                "--search",
                                "rate",
                                "--search-probe-duration",
                                "0.5s",
                                "--search-min-requests",
                                "10",
                                "--search-estimate-concurrency",
                                "8",
                                "--search-estimate-duration",
                                "2s",
                                "--search-max-probes",
                                "8",
                                "--search-precision",
                                "0.1"});
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto search = json::parse(r.out).at("settings").at("slo_search");
  const auto& estimate = search.at("capacity_estimate");
  ASSERT_TRUE(estimate.at("ok").get<bool>()) << estimate.dump();
  const double rate = estimate.at("requests_per_s").get<double>();
  // The estimate's documented tolerance above the step model (a loaded machine only lowers it);
  // below, what a loaded machine's late steps take off (Timed).
  EXPECT_LE(rate, (1 + estimate_tolerance) * predicted_capacity) << estimate.dump();
  expect_time_not_below("capacity estimate against the step model, %", 100 * (rate / predicted_capacity - 1), 0,
                        estimate_low_percent, "%");
  const auto& plan = search.at("plan");
  EXPECT_EQ(plan.at("start"), rate);
  EXPECT_EQ(plan.at("start_basis"), "the capacity estimate");
  // Each probe: max(10, ceil(load x 0.5 s)) requests.
  const auto& probes = search.at("probes");
  ASSERT_GE(probes.size(), 2U);
  EXPECT_EQ(probes.at(0).at("load"), rate);
  for (const auto& p : probes) {
    const double load = p.at("load").get<double>();
    EXPECT_EQ(p.at("requests"), std::max(10.0, std::ceil(load * 0.5))) << p.dump();
  }
  // The plan, printed before the first probe, holds the bound the search kept.
  const auto printed = r.err.find("SLO search (rate) plan: start at");
  ASSERT_NE(printed, std::string::npos) << r.err;
  EXPECT_LT(printed, r.err.find("SLO probe")) << r.err;
  const double bound_s = plan.at("time_bound_s").get<double>();
  EXPECT_NE(r.err.find(fmt::format("at most {:.0f} s in all", bound_s)), std::string::npos) << r.err;
  expect_time_not_above("search time beyond its printed bound", search.at("elapsed_s").get<double>(), bound_s, 0, "s");
  // The process's start and end included.
  expect_time_not_above("the process's time beyond the bound", wall_s, bound_s, 2, "s");
  // A rate the server cannot keep up with is never the answer.
  ASSERT_TRUE(search.at("best").is_number()) << search.dump(1);
  EXPECT_LE(search.at("best").get<double>(), (1 + estimate_tolerance) * predicted_capacity);
}

}  // namespace
}  // namespace ironbench::testing

namespace ironbench::testing {
namespace {

// One sequence slot of 8 tokens every 5 ms: 25 requests/s at most. A probe at 200 requests/s
// sends its 60 requests in 0.295 s and would need 2.4 s to serve them: at its time limit
// (0.295 s + the 0.3 s drain of a search without an estimate) it is cut and misses; the run
// is not INVALID for it, and the search goes on down to a load whose probe ends in time (a
// probe this short may end in time a little above 25 requests/s: its queue has no time to grow).
TEST(ServeSearchBoundTimed, AProbeStillRunningAtItsLimitIsCutAndMisses) {
  sim_process sim({"--max-num-seqs", "1", "--decode-base-ms", "5"});
  ASSERT_GT(sim.port(), 0);
  const auto r = run_ironbench({"serve",
                                "--no-save",
                                "--json",
                                "-",
                                "--max-lateness-ms",
                                "1000",
                                "--progress-interval",
                                "0",
                                "--base-url",
                                sim.url(),
                                "--random-input-len",
                                "8",
                                "--random-output-len",
                                "8",
                                "--slo",
                                "e2el:2000",
                                "--search",
                                "rate",
                                "--search-start",
                                "200",
                                "--search-probe-duration",
                                "0.3s",
                                "--search-min-requests",
                                "10",
                                "--search-max-probes",
                                "6",
                                "--search-precision",
                                "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  const auto& search = run.at("settings").at("slo_search");
  EXPECT_TRUE(search.at("capacity_estimate").is_null());  // --search-start: no estimate
  EXPECT_EQ(search.at("plan").at("start_basis"), "--search-start");
  EXPECT_EQ(search.at("plan").at("drain_s"), 0.3);
  const auto& first = search.at("probes").at(0);
  EXPECT_EQ(first.at("load"), 200);
  EXPECT_EQ(first.at("requests"), 60);
  EXPECT_FALSE(first.at("met").get<bool>());
  EXPECT_EQ(first.at("why").get<std::string>().rfind("cut at its time limit of 0.595 s", 0), 0U) << first.dump();
  const auto& c = run.at("cases").at(0);
  EXPECT_EQ(c.at("status"), "invalid");
  EXPECT_EQ(c.at("notes").at("slo").get<std::string>().rfind("missed: cut at its time limit", 0), 0U);
  ASSERT_TRUE(search.at("best").is_number()) << search.dump(1);
  EXPECT_LT(search.at("best").get<double>(), 200);
  expect_time_not_above("search time beyond its printed bound", search.at("elapsed_s").get<double>(),
                        search.at("plan").at("time_bound_s").get<double>(), 0, "s");
}

}  // namespace
}  // namespace ironbench::testing
