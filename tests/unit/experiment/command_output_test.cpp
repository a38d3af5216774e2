// What an experiment reads from the programs it runs: metrics by each method, failure
// patterns, and the programs themselves (exit status, process group teardown).
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "experiment/child_process.hpp"
#include "experiment/log_pattern.hpp"
#include "experiment/metric_extraction.hpp"
#include "files.hpp"
#include "temp_dir.hpp"
#include "usage_message.hpp"

namespace ironbench::experiment {
namespace {

planned_metric rule(const std::string& method) {
  planned_metric m;
  m.method = method;
  return m;
}

TEST(MetricExtraction, RegexNamedGroupsTakeTheLastMatch) {
  auto r = rule("regex");
  r.pattern = R"(step (?<step>\d+) loss (?P<loss>[0-9.]+))";
  const auto found = extract_metrics({r}, "step 1 loss 2.5\nstep 2 loss 1.25\n", "");
  EXPECT_TRUE(found.missing.empty());
  ASSERT_EQ(found.metrics.size(), 2u);
  EXPECT_EQ(found.metrics[0].name, "step");
  EXPECT_DOUBLE_EQ(found.metrics[0].value, 2);
  EXPECT_EQ(found.metrics[1].name, "loss");
  EXPECT_DOUBLE_EQ(found.metrics[1].value, 1.25);
  r.name = "samples_per_s";
  r.pattern = R"(samples/s: (?<value>\S+))";
  const auto named = extract_metrics({r}, "samples/s: 812.5\n", "");
  ASSERT_EQ(named.metrics.size(), 1u);
  EXPECT_EQ(named.metrics[0].name, "samples_per_s");
  EXPECT_EQ(extract_metrics({r}, "samples/s: many\n", "").missing.at(0),
            "metric 'samples_per_s': 'many' is not a number");
  EXPECT_EQ(extract_metrics({r}, "nothing\n", "").missing.at(0),
            "no output line matches the regex 'samples/s: (?<value>\\S+)'");
  // Thousands separators, as torchtitan prints tokens per second; not a list of numbers.
  r.pattern = R"(tps: (?<value>[0-9,.]+))";
  EXPECT_DOUBLE_EQ(extract_metrics({r}, "step: 10 tps: 1,234,567.5 mfu\n", "").metrics.at(0).value, 1234567.5);
  EXPECT_DOUBLE_EQ(extract_metrics({r}, "tps: 7,123\n", "").metrics.at(0).value, 7123);
  EXPECT_EQ(extract_metrics({r}, "tps: 12,34\n", "").missing.size(), 1u);
  // A printed number of 40,000 characters overflowed the stack of the recursive pattern that
  // checked its separators (exit 139): it is read, and too large for a double it is missing.
  std::string grouped = "1";
  for (int i = 0; i < 10000; ++i) grouped += ",234";
  const auto huge = extract_metrics({r}, "tps: " + grouped + "\n", "");
  EXPECT_TRUE(huge.metrics.empty());
  EXPECT_EQ(huge.missing.size(), 1u);
  EXPECT_EQ(extract_metrics({r}, "tps: 1" + std::string(100000, ',') + "\n", "").metrics.size(), 0u);
}

TEST(MetricExtraction, PerformanceLinesJsonPointerAndCsvColumn) {
  const testing::temp_dir dir("ironbench-metrics");
  std::ofstream(dir.str() + "/out.json") << R"({"results": {"tflops": 512.5, "name": "x"}})";
  std::ofstream(dir.str() + "/out.csv") << "size,busbw\n1024,1.5\n2048,3.25\n";
  const auto perf = extract_metrics({rule("performance")}, "warm-up\nperformance: 98.5 GB/s\n", "");
  ASSERT_EQ(perf.metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(perf.metrics[0].value, 98.5);
  EXPECT_EQ(perf.metrics[0].unit, "GB/s");
  auto j = rule("json");
  j.name = "tflops";
  j.file = "out.json";
  j.pointer = "/results/tflops";
  auto c = rule("csv");
  c.name = "busbw";
  c.file = "out.csv";
  c.column = "busbw";
  const auto files = extract_metrics({j, c}, "", dir.str());
  ASSERT_EQ(files.metrics.size(), 2u) << (files.missing.empty() ? "" : files.missing[0]);
  EXPECT_DOUBLE_EQ(files.metrics[0].value, 512.5);
  EXPECT_DOUBLE_EQ(files.metrics[1].value, 3.25);
  j.pointer = "/results/name";
  c.column = "algbw";
  const auto bad = extract_metrics({j, c}, "", dir.str());
  EXPECT_TRUE(bad.metrics.empty());
  ASSERT_EQ(bad.missing.size(), 2u);
  EXPECT_EQ(bad.missing[0], "metric 'tflops': no number at /results/name in '" + dir.str() + "/out.json'");
  EXPECT_EQ(bad.missing[1], "metric 'busbw': '" + dir.str() + "/out.csv' has no column 'algbw'");
}

TEST(LogPattern, FailurePatternsFindTheirLineAndBadRegexesAreUsageErrors) {
  const log_pattern traceback(R"(Traceback \(most recent call last\))", "fail_on");
  EXPECT_EQ(traceback.first_matching_line("performance: 1 GB/s\nTraceback (most recent call last):\n  File x\n"),
            "Traceback (most recent call last):");
  EXPECT_EQ(traceback.first_matching_line("all good\n"), "");
  EXPECT_EQ(testing::usage_message([] { (void)log_pattern("a(b", "fail_on"); }),
            "fail_on: bad regex 'a(b': missing closing parenthesis at offset 3");
}

TEST(ChildProcess, ExitStatusLogAndEnvironment) {
  const testing::temp_dir dir("ironbench-child");
  child_process p(
      {"echo \"$GREETING\" from $(pwd); exit 3", {{"GREETING", "hello"}}, dir.str(), dir.str() + "/log", 5, ""});
  EXPECT_EQ(p.wait_for(10), 3);
  EXPECT_EQ(testing::read_file(dir.str() + "/log"), "hello from " + dir.str() + "\n");
  EXPECT_EQ(child_process::describe_status(3), "exit status 3");
  EXPECT_EQ(child_process::describe_status(128 + SIGKILL), "killed by signal 9 (SIGKILL)");
}

TEST(ChildProcess, StopEndsTheWholeProcessGroupEvenWhenTermIsIgnored) {
  const testing::temp_dir dir("ironbench-child");
  // The shell starts a grandchild that ignores SIGTERM: only SIGKILL after the grace ends it.
  child_process p({"trap '' TERM; sleep 300 & echo $! > grandchild; wait", {}, dir.str(), dir.str() + "/log", 0.5, ""});
  std::string grandchild;
  for (int i = 0; i < 500 && grandchild.empty(); ++i) {
    grandchild = testing::read_file(dir.str() + "/grandchild");
    if (grandchild.empty()) usleep(10000);
  }
  ASSERT_FALSE(grandchild.empty());
  EXPECT_FALSE(p.exit_status().has_value());
  EXPECT_EQ(p.stop(), 128 + SIGKILL);
  // Gone: no such process, or a zombie left for init to reap.
  const auto stat = testing::read_file("/proc/" + std::to_string(std::stoi(grandchild)) + "/stat");
  EXPECT_TRUE(stat.empty() || stat.find(") Z ") != std::string::npos) << stat;
}

TEST(ChildProcess, TailOfFileKeepsTheLastLines) {
  const testing::temp_dir dir("ironbench-tail");
  std::ofstream(dir.str() + "/log") << "1\n2\n3\n4\n";
  EXPECT_EQ(tail_of_file(dir.str() + "/log", 2), "3\n4\n");
  EXPECT_EQ(tail_of_file(dir.str() + "/missing", 2), "");
}

}  // namespace
}  // namespace ironbench::experiment
