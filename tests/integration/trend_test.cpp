// `ironbench trend` and `report --trend` through the real binary, on synthetic nightly
// histories gathered with `results gather`: a 10 % step flagged at its run (exit 1 while it
// is the newest run), noise only flagged nowhere, and the HTML history drawn by Chromium. Each
// test runs on both back ends (store_backends.hpp): an SQLite file and a fresh database of the
// fixture's PostgreSQL server.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "store_backends.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

// Night `night` (1-based) of a STREAM case: 20 timing samples (3 % noise, 0.5 % from night to
// night); from `step_at` on the value is 10 % lower.
json night_run(int night, int step_at, std::mt19937_64& random) {
  std::normal_distribution<double> run_noise(0, 0.005), sample_noise(0, 0.03);
  const double level = 1e-3 * (step_at > 0 && night >= step_at ? 1 / 0.9 : 1.0) * std::exp(run_noise(random));
  std::vector<double> samples;
  for (int s = 0; s < 20; ++s) samples.push_back(level * std::exp(sample_noise(random)));
  auto sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double median = (sorted[9] + sorted[10]) / 2;
  const auto day = [&](int d) {
    char text[32];
    std::snprintf(text, sizeof text, "2026-%02d-%02dT02:00:00Z", 1 + (d - 1) / 28, 1 + (d - 1) % 28);
    return std::string(text);
  };
  return {{"schema_version", 1},
          {"tool", {{"name", "ironbench"}}},
          {"argv", {"ironbench", "run", "stream"}},
          {"tags", {{"suite", "nightly"}}},
          {"start_time", day(night)},
          {"end_time", day(night)},
          {"status", "valid"},
          {"status_reason", ""},
          {"host", {{"hostname", "node-a"}}},
          {"cases",
           {{{"benchmark", "stream"},
             {"device", "cpu"},
             {"status", "valid"},
             {"params", {{"size", 1048576}, {"kernel", "triad"}}},
             {"time", {{"unit", "s"}, {"samples", samples}, {"statistics", {{"count", 20}, {"median", median}}}}},
             {"metrics", {{{"name", "bandwidth"}, {"value", 1.0 / median}, {"unit", "GB/s"}}}}}}}};
}

// Writes nights [from, to] into `folder` and imports them into `db`.
void add_nights(const temp_dir& dir, const std::string& db, int from, int to, int step_at, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  for (int night = 1; night <= to; ++night) {
    const auto run = night_run(night, step_at, random);  // every night drawn, so a history grows the same
    if (night < from) continue;
    std::ofstream(dir / ("night-" + std::to_string(night) + ".json")) << run.dump();
  }
  const auto r = run_ironbench({"results", "gather", dir.path().string(), "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

class Trend : public store_backend_test {};
IRONBENCH_STORE_BACKENDS(Trend);

TEST_P(Trend, FlagsTheStepAtItsRunAndFailsWhileItIsTheNewest) {
  const temp_dir dir("ironbench_trend_");
  const auto db = fresh_store((dir / "nightly.db").string(), "trend_step");
  add_nights(dir, db, 1, 20, 21, 11);
  auto r = run_ironbench({"trend", "bandwidth", "--db", db, "--tag", "suite=nightly"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;

  add_nights(dir, db, 21, 21, 21, 11);  // the night the step lands
  r = run_ironbench({"trend", "bandwidth", "--db", db, "--benchmark", "stream", "--param", "kernel=triad"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(REGRESSION at run (\d+) \((\S+),.*\(([-+0-9.]+) %;)")))
      << r.out;
  EXPECT_EQ(m[1].str(), "21");
  EXPECT_EQ(m[2].str(), "2026-01-21T02:00:00Z");
  EXPECT_NEAR(std::stod(m[3].str()), -10, 2.5);

  // Later nights at the new level: the newest run is no regression (exit 0), the history still
  // shows where it began; --recent 0 looks at the whole history.
  add_nights(dir, db, 22, 30, 21, 11);
  r = run_ironbench({"trend", "bandwidth", "--db", db, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto series = json::parse(r.out);
  ASSERT_EQ(series.size(), 1u);
  std::vector<int> flagged;
  for (const auto& run : series[0]["runs"]) {
    if (run["flag"] != "steady" && run["flag"] != "history") flagged.push_back(run["run"].get<int>());
  }
  EXPECT_EQ(flagged, std::vector<int>{21});
  EXPECT_EQ(run_ironbench({"trend", "bandwidth", "--db", db, "--recent", "0"}).exit_code, 1);
  // Runs from before the step are out of --since: nothing to flag.
  EXPECT_EQ(run_ironbench({"trend", "bandwidth", "--db", db, "--since", "2026-01-22", "--recent", "0"}).exit_code, 0);
}

TEST_P(Trend, NoiseOnlyFlagsNothingInFiftyNights) {
  const temp_dir dir("ironbench_trend_");
  const auto db = fresh_store((dir / "nightly.db").string(), "trend_noise");
  add_nights(dir, db, 1, 50, -1, 23);
  const auto r = run_ironbench({"trend", "bandwidth", "--db", db, "--recent", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("improvement"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("50 run(s)"), std::string::npos) << r.out;
}

TEST_P(Trend, BadSelectionsAreOneLineUsageErrors) {
  const temp_dir dir("ironbench_trend_");
  const auto db = fresh_store((dir / "nightly.db").string(), "trend_bad");
  add_nights(dir, db, 1, 3, -1, 5);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"trend", "no_such_metric", "--db", db},
        std::vector<std::string>{"trend", "bandwidth", "--db", db, "--tag", "suite=weekly"},
        std::vector<std::string>{"trend", "bandwidth", "--db", db, "--min-difference", "50 percent"},
        std::vector<std::string>{"trend", "bandwidth", "--db", db, "--since", "last week"},
        std::vector<std::string>{"trend", "bandwidth", "--db", db, "--recent", "-1"},
        std::vector<std::string>{"report", "--db", db}}) {
    const auto r = run_ironbench(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Not taken as 18446744073709551615, and said plainly.
  const auto r = run_ironbench({"trend", "bandwidth", "--db", db, "--recent", "-1"});
  EXPECT_NE(r.err.find("--recent: '-1' is not a count of runs (0, 1, 2 ...)"), std::string::npos) << r.err;
}

// Issue 44: a count that is 0 night after night and then 1000 has no ratio to judge; trend said
// nothing. It is a change from zero: a regression of failed requests, exit 1.
TEST_P(Trend, AMetricLeavingALevelOfZeroIsFlagged) {
  const temp_dir dir("ironbench_trend_");
  const auto db = fresh_store((dir / "nightly.db").string(), "trend_zero");
  std::mt19937_64 random(3);
  for (int night = 1; night <= 8; ++night) {
    auto run = night_run(night, -1, random);
    run["cases"][0]["metrics"].push_back({{"name", "failed"}, {"value", night < 8 ? 0 : 1000}, {"unit", "requests"}});
    std::ofstream(dir / ("night-" + std::to_string(night) + ".json")) << run.dump();
  }
  ASSERT_EQ(run_ironbench({"results", "gather", dir.path().string(), "--db", db}).exit_code, 0);
  auto r = run_ironbench({"trend", "failed", "--db", db});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSION at run 8 (2026-01-08T02:00:00Z, node-a): failed 0 -> 1000 requests (from 0: +1000 "
                       "requests; the 7 runs before were all 0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("from 0: +1000"), std::string::npos) << r.out;
  r = run_ironbench({"trend", "failed", "--db", db, "--format", "json"});
  const auto last = json::parse(r.out)[0]["runs"].back();
  EXPECT_EQ(last["rule"], "from zero");
  EXPECT_EQ(last["absolute_change"], 1000);
}

TEST_P(Trend, ReportDrawsTheHistoryWithTheChangeMarked) {
  if (wait_for(start_program("chromium", {"--version"})).exit_code != 0) {
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it where Debian packages it)";
  }
  const temp_dir dir("ironbench_trend_");
  const auto db = fresh_store((dir / "nightly.db").string(), "trend_report");
  add_nights(dir, db, 1, 30, 21, 11);
  const auto page = (dir / "trend.html").string();
  const auto r = run_ironbench({"report", "--trend", "bandwidth", "--db", db, "-o", page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html = read_file(page);
  EXPECT_NE(html.find("<tr class=\"regression\">"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "the report must not load anything";
  const auto dom = wait_for(
      start_program("chromium", {"--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page}));
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find(R"(data-charts="1" data-charts-painted="1" data-charts-blank="0")"), std::string::npos)
      << dom.out.substr(0, 600);
  EXPECT_NE(dom.out.find(R"(data-flagged="1")"), std::string::npos) << "the change is marked on the chart";
}

}  // namespace
}  // namespace ironbench::testing
