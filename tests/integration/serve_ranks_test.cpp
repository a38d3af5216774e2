// ironbench serve spread over several client ranks (mpirun, ranks on this machine) against
// serve-sim: rank 0 merges every rank's requests into one point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "core/json.hpp"
#include "process.hpp"
#include "run_json.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// Sanitized builds skip these (MPI ranks under a sanitizer take long on two cores): the merge
// is unit-tested (ClientRanks) in every build, the ranks here in the release build.
#define REQUIRE_MPI()                                                                     \
  if (IRONBENCH_SANITIZED_BUILD) GTEST_SKIP() << "client ranks run in the release build"; \
  if (!IRONBENCH_HAS_MPI) GTEST_SKIP() << "this build has no MPI";                        \
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)"

// `serve` with `args` on `ranks` client ranks (1: no launcher); its run JSON.
json serve_on(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> serve = {IRONBENCH_BINARY,      "serve", "--no-save",         "--json", "-",
                                    "--progress-interval", "0",     "--max-lateness-ms", "1000"};
  serve.insert(serve.end(), args.begin(), args.end());
  process_result r;
  if (ranks == 1) {
    r = run_program(serve.front(), {serve.begin() + 1, serve.end()});
  } else {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
    setenv("OMPI_MCA_btl", "self,vader,tcp", 0);
    std::vector<std::string> line = {"--oversubscribe", "-np", std::to_string(ranks)};
    line.insert(line.end(), serve.begin(), serve.end());
    r = run_program("mpirun", line);
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "one run document, from rank 0 only:\n" << r.out.substr(0, 2000);
  return doc;
}

// Eight streams from one client, and four from each of two: the server sees the same load, so
// the two runs send the same requests and, where `judge_times`, measure the same within 3 %
// (latencies: or a millisecond, a fifth of the simulator's step). Two runs a few seconds apart
// beside two busy loops differed by up to 19 % (docs/testing.md, "Tests that judge time"): the
// times are judged by the slow test alone, which runs with nothing beside it.
void expect_two_ranks_as_one(bool judge_times) {
  sim_process sim({"--decode-base-ms", "5"});
  ASSERT_GT(sim.port(), 0);
  const std::vector<std::string> args = {"--base-url",          sim.url(), "--max-concurrency",  "8",
                                         "--num-prompts",       "160",     "--random-input-len", "64",
                                         "--random-output-len", "16"};
  const auto one = point_of(serve_on(1, args));
  const auto run = serve_on(2, args);
  const auto two = point_of(run);
  EXPECT_EQ(run.at("settings").at("client_ranks"), 2);
  EXPECT_EQ(two.at("completed"), 160);
  EXPECT_EQ(two.at("total_output_tokens"), one.at("total_output_tokens"));
  EXPECT_EQ(two.at("total_input_tokens"), one.at("total_input_tokens"));
  ASSERT_EQ(two.at("client_ranks").size(), 2U);
  for (const auto& r : two.at("client_ranks")) EXPECT_EQ(r.at("requests"), 80) << r.dump();
  EXPECT_LE(two.at("max_concurrent_requests").get<int>(), 8);
  if (!judge_times) return;
  for (const char* key : {"output_throughput", "median_tpot_ms", "median_ttft_ms", "median_e2el_ms"}) {
    if (!one.contains(key)) continue;
    const double a = one.at(key).get<double>(), b = two.at(key).get<double>();
    const bool latency = std::string(key).ends_with("_ms");
    EXPECT_NEAR(b, a, latency ? std::max(0.03 * a, 1.0) : 0.03 * a) << key << ": 1 rank " << a << ", 2 ranks " << b;
  }
}

TEST(ServeRanks, TwoRanksOfFourStreamsSendWhatOneRankOfEightSends) {
  REQUIRE_MPI();
  expect_two_ranks_as_one(false);
}

// Label "slow" (docs/testing.md, "Tests that judge time").
TEST(ServeRanksSlow, TwoRanksOfFourStreamsMeasureWhatOneRankOfEightMeasures) {
  REQUIRE_MPI();
  expect_two_ranks_as_one(true);
}

// A Poisson schedule split over four ranks is the one schedule one client would keep.
TEST(ServeRanksTimed, FourRanksSendOneScheduleBetweenThem) {
  REQUIRE_MPI();
  sim_process sim({"--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  temp_dir dir;
  std::vector<std::vector<double>> schedules;
  for (int ranks : {1, 4}) {
    const auto results = (dir.path() / std::to_string(ranks)).string();
    const auto run =
        serve_on(ranks, {"--base-url", sim.url(), "--request-rate", "100", "--num-prompts", "80", "--random-input-len",
                         "16", "--random-output-len", "4", "--seed", "5", "--save-result", "--save-detailed",
                         "--result-dir", results, "--result-filename", "r.json"});
    EXPECT_EQ(point_of(run).at("completed"), 80);
    std::vector<double> schedule;
    std::ifstream in(results + "/r.json.requests.jsonl");
    std::string line;
    while (std::getline(in, line)) schedule.push_back(json::parse(line).at("scheduled_s").get<double>());
    schedules.push_back(schedule);
  }
  ASSERT_EQ(schedules[0].size(), 80U);
  ASSERT_EQ(schedules[1].size(), 80U);
  // The ranks' clocks start within a few milliseconds of each other (a barrier), and their
  // schedules are moved onto rank 0's clock by the difference.
  double worst_ms = 0;
  for (std::size_t i = 0; i < 80; ++i)
    worst_ms = std::max(worst_ms, 1e3 * std::fabs(schedules[1][i] - schedules[0][i]));
  expect_time_not_above("largest schedule difference, 4 ranks against 1", worst_ms, 0, 5);
}

}  // namespace
}  // namespace ironbench::testing
