// An SLO search whose probes the client cannot keep (real processes on loopback): a probe
// INVALID because the client fell behind is "could not judge", never "missed"; the search goes
// on below it and ends on a judged answer (exit code 0) or says it could not judge (exit code
// 3), never "no load met" (exit code 1) for probes it did not judge. A closed loop's first burst
// is not judged as a schedule.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"

namespace ironbench::testing {
namespace {

// serve-sim with no step time: each request ends within a fraction of a millisecond, so the
// lateness a schedule allows (2 % of the median end-to-end latency, at a floor of 0.1 us) is
// microseconds, which no client's sends keep: the client is behind on every timed probe.
const std::vector<std::string> unjudged_instant_server = {"--decode-base-ms", "0", "--decode-per-seq-ms", "0"};

process_result unjudged_search(const std::string& url, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"serve",
                                   "--no-save",
                                   "--json",
                                   "-",
                                   "--progress-interval",
                                   "0",
                                   "--base-url",
                                   url,
                                   "--random-input-len",
                                   "8",
                                   "--random-output-len",
                                   "2",
                                   "--slo",
                                   "e2el:10000",
                                   "--search-probe-duration",
                                   "0.3s",
                                   "--search-min-requests",
                                   "10",
                                   "--search-max-probes",
                                   "5"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_ironbench(args);
}

// Whatever the probes came to, an unjudged probe is never called missed, and the search's
// outcome, its case and the exit code agree.
void expect_unjudged_consistent(const process_result& r, std::size_t& unjudged_probes) {
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << "exit " << r.exit_code << "\n" << r.err;
  const auto run = json::parse(r.out);
  const auto& search = run.at("settings").at("slo_search");
  const auto outcome = search.at("outcome").get<std::string>();
  // e2el 10 s holds for every probe the client kept: a judged probe is met, so "missed" is
  // never the answer.
  EXPECT_NE(outcome, "missed") << search.dump(1);
  EXPECT_EQ(r.exit_code, outcome == "found" ? 0 : 3) << outcome;
  const auto& probes = search.at("probes");
  const auto& cases = run.at("cases");
  ASSERT_EQ(cases.size(), probes.size() + 1) << "a case per probe and the answer's";
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto& p = probes.at(i);
    const auto& c = cases.at(i);
    const auto note = c.at("notes").at("slo").get<std::string>();
    if (p.at("outcome") == "could not judge") {
      ++unjudged_probes;
      EXPECT_FALSE(p.at("measured").get<bool>());
      EXPECT_EQ(c.at("status"), "invalid");
      EXPECT_EQ(note.rfind("could not judge: the client fell behind its schedule", 0), 0U) << note;
    } else {
      EXPECT_EQ(p.at("outcome"), "met") << p.dump();
      EXPECT_EQ(note, "met");
    }
  }
  EXPECT_EQ(r.err.find(": missed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no load met"), std::string::npos) << r.err;
  const auto& answer = cases.at(cases.size() - 1);
  EXPECT_EQ(answer.at("benchmark"), "serve_slo_limit");
  EXPECT_EQ(answer.at("notes").at("outcome"), outcome);
  if (outcome == "found") {
    EXPECT_EQ(answer.at("status"), "valid");
    EXPECT_TRUE(search.at("best").is_number());
  } else {
    EXPECT_EQ(outcome, "could not judge");
    EXPECT_EQ(answer.at("status"), "invalid");
    EXPECT_EQ(answer.at("reason").get<std::string>().rfind("could not judge whether any load meets", 0), 0U);
    EXPECT_NE(r.err.find("SLO search (rate): could not judge: "), std::string::npos) << r.err;
    EXPECT_TRUE(search.at("best").is_null());
  }
}

TEST(ServeSloUnjudged, ARateSearchWithAClientBehindNeverSaysMissed) {
  sim_process sim(unjudged_instant_server);
  ASSERT_GT(sim.port(), 0);
  const auto r =
      unjudged_search(sim.url(), {"--max-lateness-ms", "0.0001", "--search", "rate", "--search-start", "200"});
  std::size_t unjudged = 0;
  expect_unjudged_consistent(r, unjudged);
  // The client cannot keep a microsecond schedule: at least the first probe was not judged
  // (before, the search stopped there with "no load met" and exit code 1).
  EXPECT_GE(unjudged, 1U) << r.err;
  RecordProperty("unjudged_probes", static_cast<int>(unjudged));
}

TEST(ServeSloUnjudged, AClientThatKeepsItsScheduleIsJudged) {
  // The same search with a lateness floor of 1 s and a server with 5 ms steps: every
  // probe is judged and met, and the search finds its answer.
  sim_process sim({"--decode-base-ms", "5"});
  ASSERT_GT(sim.port(), 0);
  const auto r = unjudged_search(
      sim.url(), {"--max-lateness-ms", "1000", "--search", "rate", "--search-start", "20", "--search-max", "40"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto search_json = json::parse(r.out).at("settings").at("slo_search");
  EXPECT_EQ(search_json.at("outcome"), "found");
  for (const auto& p : search_json.at("probes")) EXPECT_EQ(p.at("outcome"), "met") << p.dump();
  EXPECT_EQ(search_json.at("best"), 40);
  EXPECT_TRUE(search_json.at("lowest_unjudged").is_null());
}

// A closed loop (max concurrency 48, no rate) sends its first 48 requests at once: how fast
// they leave is no schedule, and the point is not INVALID for it at the default lateness floor.
TEST(ServeSloUnjudged, AClosedLoopsFirstBurstIsNotJudgedAsASchedule) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto r = run_ironbench({"serve", "--no-save", "--json", "-", "--progress-interval", "0", "--base-url",
                                sim.url(), "--random-input-len", "8", "--random-output-len", "4", "--num-prompts", "48",
                                "--max-concurrency", "48"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  const auto& c = run.at("cases").at(0);
  EXPECT_EQ(c.at("status"), "valid") << c.dump(1);
}

}  // namespace
}  // namespace ironbench::testing
