// The straggler report of nccl-tests' per-process iteration times (JSON with -I 1:
// per_process_max_times_us), and its absence, said in the notes, where a file has none.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "import_fixtures.hpp"
#include "results/importer_table.hpp"
#include "results/nccl_tests_import.hpp"

namespace ironbench::results {
namespace {

std::string fixture_path(const std::string& name) { return std::string(IRONBENCH_TEST_DATA) + "/nccl-tests/" + name; }

nccl_tests_report only_report(const std::string& name) {
  const auto reports = parse_nccl_tests(testing::read_fixture_file("nccl-tests", name), name);
  EXPECT_EQ(reports.size(), 1U);
  return reports.front();
}

TEST(NcclTestsStragglers, OneProcessArrivingLateIsNamedWithItsLateness) {
  const auto name = "all_reduce_perf_4proc_slow_process_constructed.json";
  const auto report = only_report(name);
  ASSERT_EQ(report.rows.size(), 2U);
  ASSERT_EQ(report.rows[0].out_of_place.process_times_us.size(), 4U);
  ASSERT_EQ(report.rows[0].in_place.process_times_us[2].size(), 10U);
  // times_us is the longest process's time of each iteration.
  const auto& p = report.rows[1].out_of_place;
  for (std::size_t i = 0; i < p.iteration_times_us.size(); ++i) {
    double longest = 0;
    for (const auto& times : p.process_times_us) longest = std::max(longest, times[i]);
    EXPECT_DOUBLE_EQ(p.iteration_times_us[i], longest);
  }

  const auto stragglers = nccl_tests_stragglers(report);
  ASSERT_TRUE(stragglers.has_value());
  const auto& s = *stragglers;
  EXPECT_EQ(s["steps"], 40);  // 2 sizes x 2 placements x 10 iterations
  EXPECT_EQ(s["ranks"], 4);
  EXPECT_EQ(s["method"], nccl_tests_straggler_method);
  ASSERT_EQ(s["named"].size(), 1U);
  EXPECT_EQ(s["named"][0]["rank"], 2);
  EXPECT_EQ(s["named"][0]["host"], "node-b");
  EXPECT_DOUBLE_EQ(s["named"][0]["share_last"].get<double>(), 1.0);
  // The fixture's process 2 spends 300 us (+- 5 %) less per iteration than the others.
  EXPECT_NEAR(s["named"][0]["median_lateness_ms"].get<double>(), 0.3, 0.03);
  for (const auto& r : s["per_rank"]) EXPECT_EQ(r["named"], r["rank"] == 2);
  ASSERT_EQ(s["summary"].size(), 1U);
  EXPECT_TRUE(s["summary"][0].get<std::string>().starts_with(
      "straggler: rank 2 (host node-b) arrived last in 40 of 40 steps (100%)"))
      << s["summary"][0];

  for (const auto& c : nccl_tests_cases(report, name, {})) {
    EXPECT_EQ(c.notes.at("stragglers"), "per-process times of 4 processes: settings.stragglers");
  }
}

TEST(NcclTestsStragglers, EvenProcessesNameNobody) {
  const auto stragglers = nccl_tests_stragglers(only_report("all_reduce_perf_4proc_even_constructed.json"));
  ASSERT_TRUE(stragglers.has_value());
  EXPECT_EQ((*stragglers)["steps"], 40);
  EXPECT_TRUE((*stragglers)["named"].empty());
  for (const auto& r : (*stragglers)["per_rank"]) {
    EXPECT_FALSE(r["named"].get<bool>());
    EXPECT_LT(std::abs(r["median_lateness_ms"].get<double>()), 0.02);
  }
  ASSERT_EQ((*stragglers)["summary"].size(), 1U);
  EXPECT_TRUE((*stragglers)["summary"][0].get<std::string>().starts_with("stragglers: none over 40 steps of 4 ranks"));
}

TEST(NcclTestsStragglers, SkippedIterationsAreNotSteps) {
  auto doc =
      json::parse(testing::read_fixture_file("nccl-tests", "all_reduce_perf_4proc_slow_process_constructed.json"));
  for (auto& r : doc["results"]) {
    r["out_of_place_per_iter"]["skipped_iterations"] = 4;
    r["in_place_per_iter"]["skipped_iterations"] = 4;
  }
  const auto stragglers = nccl_tests_stragglers(parse_nccl_tests(doc.dump(), "x.json").front());
  ASSERT_TRUE(stragglers.has_value());
  EXPECT_EQ((*stragglers)["steps"], 24);
  EXPECT_EQ((*stragglers)["named"][0]["rank"], 2);
}

TEST(NcclTestsStragglers, OutputWithoutPerProcessTimesHasNoReportAndSaysSo) {
  // -I 1 from one process (two GPUs): every iteration's time, but no per-process rows; -J
  // without -I 1; the printed table.
  for (const auto* name : {"all_reduce_perf_t4_2gpu_per_iter.json", "all_reduce_perf_h100_16ranks_constructed.json",
                           "all_reduce_perf_h100_16ranks.txt"}) {
    SCOPED_TRACE(name);
    const auto report = only_report(name);
    EXPECT_FALSE(nccl_tests_stragglers(report).has_value());
    const auto cases = nccl_tests_cases(report, name, {});
    ASSERT_FALSE(cases.empty());
    for (const auto& c : cases) EXPECT_EQ(c.notes.at("stragglers"), nccl_tests_no_process_times);

    import_request request{"nccl-tests", {fixture_path(name)}, {}, ""};
    const auto run = import_run(request);
    EXPECT_EQ(run.cases.size(), cases.size());
    EXPECT_FALSE(run.settings.contains("stragglers"));
  }
}

TEST(NcclTestsStragglers, ImportRunCarriesOneFilesReportButNotTwo) {
  import_request request{"nccl-tests", {fixture_path("all_reduce_perf_4proc_slow_process_constructed.json")}, {}, ""};
  auto run = import_run(request);
  ASSERT_TRUE(run.settings.contains("stragglers"));
  EXPECT_EQ(run.settings["stragglers"]["named"][0]["rank"], 2);
  EXPECT_EQ(run.cases.size(), 4U);

  // A file without per-process times beside it leaves the report as it is.
  request.files.push_back(fixture_path("all_reduce_perf_t4_2gpu_per_iter.json"));
  run = import_run(request);
  EXPECT_EQ(run.settings["stragglers"]["named"][0]["rank"], 2);

  // Two files' reports are two runs': neither is kept, and a note says why.
  request.files.push_back(fixture_path("all_reduce_perf_4proc_even_constructed.json"));
  run = import_run(request);
  EXPECT_FALSE(run.settings.contains("stragglers"));
  EXPECT_EQ(run.settings["stragglers_note"],
            "several files give stragglers: none kept; import them one file at a time");
}

TEST(NcclTestsStragglers, DamagedPerProcessTimesAreRefused) {
  auto doc =
      json::parse(testing::read_fixture_file("nccl-tests", "all_reduce_perf_4proc_slow_process_constructed.json"));
  auto shorter = doc;
  shorter["results"][0]["in_place_per_iter"]["per_process_max_times_us"][1].erase(0);
  EXPECT_THROW((void)parse_nccl_tests(shorter.dump(), "x.json"), usage_error);
  auto negative = doc;
  negative["results"][1]["out_of_place_per_iter"]["per_process_max_times_us"][3][5] = -1.0;
  EXPECT_THROW((void)parse_nccl_tests(negative.dump(), "x.json"), usage_error);
  auto not_a_list = doc;
  not_a_list["results"][0]["out_of_place_per_iter"]["per_process_max_times_us"] = "late";
  EXPECT_THROW((void)parse_nccl_tests(not_a_list.dump(), "x.json"), usage_error);
}

}  // namespace
}  // namespace ironbench::results
