// ironbench experiment run against real processes: serve-sim as the service (started, waited
// for, watched and stopped by the experiment), shell commands as command steps, the results
// database and the HTML report. Every test checks that no process it started is left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "core/json.hpp"
#include "free_port.hpp"
#include "http_get.hpp"
#include "process.hpp"
#include "run_json.hpp"
#include "sim_process.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point start) { return std::chrono::duration<double>(clock::now() - start).count(); }

// Every pid a run's output names as a started service or command ("NAME: started (pid N)").
std::vector<int> started_pids(const std::string& out) {
  std::vector<int> pids;
  static const std::regex started(R"(: started \(pid (\d+)\))");
  for (std::sregex_iterator it(out.begin(), out.end(), started), end; it != end; ++it) {
    pids.push_back(std::stoi((*it)[1].str()));
  }
  return pids;
}

bool process_exists(int pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

void expect_none_left(const std::string& out) {
  for (const int pid : started_pids(out)) EXPECT_FALSE(process_exists(pid)) << "pid " << pid << " is still running";
}

// The point files of an experiment folder, in point order.
std::vector<json> point_runs(const std::string& results_dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(results_dir)) {
    const auto name = e.path().filename().string();
    if (name.rfind("point-", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<json> runs;
  for (const auto& f : files) runs.push_back(json::parse(read_file(f)));
  return runs;
}

struct experiment_dir {
  temp_dir dir{"ironbench_experiment_"};
  std::string recipe(const std::string& text) const { return dir.write("recipe.yaml", text).string(); }
  std::vector<std::string> args(const std::string& verb, std::vector<std::string> more = {}) const {
    std::vector<std::string> a = {"experiment", verb, (dir / "recipe.yaml").string(), "--db",
                                  (dir / "results.db").string()};
    if (verb == "run") a.insert(a.end(), {"--results-dir", (dir / "results").string()});
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
};

// A serve-sim service and a two-point concurrency sweep, measured twice per point.
std::string sweep_recipe(int port) {
  return "schema_version: 1\n"
         "name: sim-sweep\n"
         "tags: {study: integration}\n"
         "variables:\n"
         "  port: \"" +
         std::to_string(port) +
         "\"\n"
         "  url: http://127.0.0.1:${port}\n"
         "matrix:\n"
         "  concurrency: [2, 4]\n"
         "repeat: 2\n"
         "steps:\n"
         "  - service:\n"
         "      name: engine\n"
         "      command: " +
         std::string(ironbench_binary()) +
         " serve-sim --port ${port} --decode-base-ms 1\n"
         "      ready: {url: \"${url}\", model: ironbench-sim, timeout: 30s}\n"
         "      stop_grace: 5s\n"
         "  - serve:\n"
         "      options: {max-concurrency: \"${concurrency}\", num-prompts: 12, random-input-len: 32,\n"
         "                random-output-len: 8, max-lateness-ms: 1000}\n"
         "  - command:\n"
         "      name: probe\n"
         "      # without a workdir: in the point's folder, which IRONBENCH_POINT_DIR names\n"
         "      command: 'test \"$$(pwd)\" = \"$$IRONBENCH_POINT_DIR\" && echo \"performance: ${concurrency}.5 "
         "GB/s\"'\n"
         "      metrics: [{performance: true}]\n";
}

TEST(Experiment, ServiceSweepStoresEveryPointWritesTheReportAndResumes) {
  experiment_dir e;
  e.recipe(sweep_recipe(free_port()));
  const auto r = run_ironbench(e.args("run"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("engine: ready after"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("engine: still running"), std::string::npos) << "the second point keeps the service\n" << r.out;
  expect_none_left(r.out);

  const auto runs = point_runs((e.dir / "results").string());
  ASSERT_EQ(runs.size(), 2u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    const int concurrency = i == 0 ? 2 : 4;
    EXPECT_EQ(run.at("tags").at("experiment"), "sim-sweep");
    EXPECT_EQ(run.at("tags").at("concurrency"), std::to_string(concurrency));
    EXPECT_EQ(run.at("tags").at("study"), "integration");
    EXPECT_EQ(run.at("tags").at("experiment_outcome"), "done");
    const auto* serve = case_of(run, "serve");
    ASSERT_NE(serve, nullptr) << run.dump(1);
    EXPECT_EQ(serve->at("params").at("max_concurrency"), concurrency);
    EXPECT_EQ(metric_of(*serve, "failed"), 0);
    const auto* probe = case_of(run, "probe");
    ASSERT_NE(probe, nullptr);
    EXPECT_DOUBLE_EQ(metric_of(*probe, "performance"), concurrency + 0.5);
    EXPECT_EQ(probe->at("params").at("concurrency"), concurrency) << "matrix values are parameters of every case";
    // Two repeats: each metric's values, median and spread.
    const auto& stats = run.at("settings").at("experiment").at("repeat_statistics");
    ASSERT_FALSE(stats.empty());
    for (const auto& s : stats) {
      EXPECT_EQ(s.at("repeats"), 2);
      EXPECT_EQ(s.at("values").size(), 2u);
      EXPECT_GE(s.at("stdev").get<double>(), 0);
    }
  }
  const auto report_path =
      (std::filesystem::directory_iterator(e.dir / "results" / "experiments")->path() / "report.html").string();
  const auto report = read_file(report_path);
  EXPECT_NE(report.find("<h2>Points</h2>"), std::string::npos);
  EXPECT_NE(report.find("\"matrix\":[\"concurrency\"]"), std::string::npos);

  const auto list = run_ironbench({"experiment", "list", "--db", (e.dir / "results.db").string()});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(std::regex_search(list.out, std::regex(R"(sim-sweep\s+[0-9a-f]{16}\s+\S+\s+2\s+0\s+0\s+2)"))) << list.out;

  // The points are runs like any other: compare them by their tags.
  const auto compared = run_ironbench({"compare", "experiment=sim-sweep,concurrency=2",
                                       "experiment=sim-sweep,concurrency=4", "--db", (e.dir / "results.db").string()});
  EXPECT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_NE(compared.out.find("environment: the same on every side"), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("probe"), std::string::npos) << compared.out;

  // The report draws: every chart painted, in headless Chromium where it is installed.
  if (wait_for(start_program("chromium", {"--version"})).exit_code == 0) {
    const auto dom =
        wait_for(start_program("chromium", {"--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,4000",
                                            "--dump-dom", "file://" + report_path}));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        dom.out, m, std::regex(R"re(data-charts="(\d+)" data-charts-painted="(\d+)" data-charts-blank="0")re")))
        << dom.out.substr(0, 2000);
    EXPECT_GE(std::stoi(m[1].str()), 2) << "at least a chart per benchmark against concurrency";
    EXPECT_EQ(m[1].str(), m[2].str());
  }

  // Again: every point is stored for this hash, nothing starts.
  const auto again = run_ironbench(e.args("run"));
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(started_pids(again.out).size(), 0u) << again.out;
  EXPECT_NE(again.out.find("0 done, 0 invalid, 0 failed, 2 already stored"), std::string::npos) << again.out;
}

TEST(ExperimentTimed, AServiceThatDiesFailsThePointAtOnceAndEarlierPointsStay) {
  experiment_dir e;
  // The second point's service kills itself two seconds after it started, in the middle of a
  // sweep that would take minutes.
  e.recipe("schema_version: 1\nname: dying\nvariables: {port: \"" + std::to_string(free_port()) +
           "\"}\nmatrix:\n  prompts: [8, 5000]\nsteps:\n"
           "  - service:\n      name: engine\n"
           "      command: if [ ${prompts} -gt 100 ]; then (sleep 2; kill -9 $$$$) & fi; exec " +
           std::string(ironbench_binary()) +
           " serve-sim --port ${port} --decode-base-ms 20\n"
           "      ready: {url: \"http://127.0.0.1:${port}\", timeout: 30s}\n"
           "  - serve:\n      options: {max-concurrency: 4, num-prompts: \"${prompts}\", random-output-len: 16}\n");
  const auto start = clock::now();
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The point fails when the service dies (2 s in), not at the end of a sweep of minutes.
  expect_time_not_above("the run's time, the service dying 2 s in", seconds_since(start), 0, 30, "s");
  expect_none_left(r.out);
  const auto runs = point_runs((e.dir / "results").string());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("tags").at("experiment_outcome"), "done");
  EXPECT_EQ(runs[1].at("tags").at("experiment_outcome"), "failed");
  const auto* failed = case_of(runs[1], "serve");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->at("status"), "failed");
  EXPECT_NE(failed->at("reason").get<std::string>().find("service 'engine' exited (killed by signal 9 (SIGKILL)) "
                                                         "during step 'serve'"),
            std::string::npos)
      << failed->dump(1);
  EXPECT_NE(failed->at("notes").at("log_tail").get<std::string>().find("serve-sim"), std::string::npos);
}

TEST(ExperimentTimed, AServiceNeverReadyFailsAtItsReadinessTimeout) {
  experiment_dir e;
  e.recipe(
      "schema_version: 1\nname: never-ready\nsteps:\n"
      "  - service:\n      name: sleeper\n      command: echo waiting; sleep 120\n"
      "      ready: {url: \"http://127.0.0.1:" +
      std::to_string(free_port()) +
      "\", timeout: 1500ms}\n      stop_grace: 1s\n"
      "  - command:\n      command: echo never\n      metrics: [{performance: true}]\n");
  const auto start = clock::now();
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  expect_time_not_above("the run's time, a readiness timeout of 1.5 s", seconds_since(start), 0, 15, "s");
  EXPECT_NE(r.out.find("service 'sleeper' was not ready within 1.5 s: GET http://127.0.0.1:"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("waiting"), std::string::npos) << "the log's last lines are shown\n" << r.out;
  expect_none_left(r.out);
}

TEST(ExperimentTimed, AStepPastItsTimeoutIsStoppedWithEverythingItStarted) {
  experiment_dir e;
  // A duration of its own (60.PID s) names this test's sleeps: other tests' on the machine are
  // not counted.
  const std::string sleep = "sleep 60." + std::to_string(getpid());
  e.recipe(
      "schema_version: 1\nname: slow\nsteps:\n  - command:\n      name: stuck\n      timeout: 1s\n"
      "      command: 'echo started; " +
      sleep + " & " + sleep + "'\n      metrics: [{performance: true}]\n");
  const auto start = clock::now();
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  expect_time_not_above("the run's time, a step timeout of 1 s", seconds_since(start), 0, 20, "s");
  EXPECT_NE(r.out.find("FAILED: step 'stuck' timed out after 1 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("started"), std::string::npos) << "its log's last lines\n" << r.out;
  // Both sleeps were in the step's process group: none is left (allowing a killed process the
  // moment the kernel takes to finish its exit on a loaded machine, at most 20 s: a hang guard,
  // since a sleep that escaped the group would still run for a minute).
  auto left = run_program("pgrep", {"-f", sleep});
  for (int retry = 0; retry < 200 && left.exit_code == 0; ++retry) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = run_program("pgrep", {"-f", sleep});
  }
  EXPECT_NE(left.exit_code, 0) << "still running: " << left.out;
}

TEST(Experiment, CommandMetricsByEveryMethodAndEveryWayACommandFails) {
  experiment_dir e;
  e.recipe(R"(schema_version: 1
name: commands
matrix:
  mode: [ok, traceback, exit, missing, oom]
steps:
  - command:
      name: job
      workdir: )" +
           e.dir.str() + R"(
      timeout: 20s
      command: |
        echo "samples/s: 41.5 loss 2.25"
        echo "performance: 7 GB/s"
        printf '{"out": {"tokens_per_s": 1234.5}}' > out-${mode}.json
        printf 'size,busbw\n1024,1.5\n2048,3.25\n' > bw.csv
        case ${mode} in
          traceback) echo 'Traceback (most recent call last):'; echo 'ValueError: boom';;
          exit) exit 3;;
          missing) echo 'not json' > out-${mode}.json;;
          oom) echo 'torch.OutOfMemoryError: CUDA out of memory';;
        esac
      metrics:
        - {regex: 'samples/s: (?<value>[0-9.]+) loss (?<loss>[0-9.]+)', name: samples_per_s, unit: samples/s}
        - {performance: true}
        - {json: 'out-${mode}.json', pointer: /out/tokens_per_s, name: tokens_per_s, unit: tok/s}
        - {csv: bw.csv, column: busbw, name: busbw, unit: GB/s}
)");
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto runs = point_runs((e.dir / "results").string());
  ASSERT_EQ(runs.size(), 5u);
  const auto* ok = case_of(runs[0], "job");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->at("status"), "valid");
  EXPECT_DOUBLE_EQ(metric_of(*ok, "samples_per_s"), 41.5);
  EXPECT_DOUBLE_EQ(metric_of(*ok, "loss"), 2.25);
  EXPECT_DOUBLE_EQ(metric_of(*ok, "performance"), 7);
  EXPECT_DOUBLE_EQ(metric_of(*ok, "tokens_per_s"), 1234.5);
  EXPECT_DOUBLE_EQ(metric_of(*ok, "busbw"), 3.25);
  const std::vector<std::string> reasons = {
      "its output matches fail_on /Traceback \\(most recent call last\\)/: Traceback (most recent call last):",
      "step 'job' ended with exit status 3", "metric 'tokens_per_s'", "its output matches fail_on /OutOfMemoryError/"};
  for (std::size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].at("tags").at("experiment_outcome"), "failed") << runs[i].dump(1);
    const auto* failed = case_of(runs[i], "job");
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->at("status"), "failed");
    EXPECT_NE(failed->at("reason").get<std::string>().find(reasons[i - 1]), std::string::npos) << failed->dump(1);
    EXPECT_NE(failed->at("notes").at("log_tail").get<std::string>().find("performance: 7 GB/s"), std::string::npos)
        << "a number was printed, and the point still fails";
  }
}

TEST(ExperimentTimed, CtrlCStopsTheServiceKeepsFinishedPointsAndResumeRunsOnlyTheRest) {
  experiment_dir e;
  e.recipe("schema_version: 1\nname: interrupted\nvariables: {port: \"" + std::to_string(free_port()) +
           "\"}\nmatrix:\n  prompts: [8, 5000]\nsteps:\n"
           "  - service:\n      name: engine\n      command: " +
           std::string(ironbench_binary()) +
           " serve-sim --port ${port} --decode-base-ms 20\n"
           "      ready: {url: \"http://127.0.0.1:${port}\", timeout: 30s}\n"
           "  - serve:\n      options: {max-concurrency: 2, num-prompts: \"${prompts}\", random-output-len: 16}\n");
  const auto process = start_ironbench(e.args("run"));
  const auto deadline = clock::now() + std::chrono::seconds(60);
  while (clock::now() < deadline && read_file(process.out_path).find("point 2/2") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto sent = clock::now();
  kill(process.pid, SIGINT);
  const auto r = wait_for(process);
  EXPECT_EQ(r.exit_code, 130) << r.out << r.err;
  expect_time_not_above("from Ctrl-C to the end of the run", seconds_since(sent), 0, 15, "s");
  expect_none_left(r.out);
  const auto runs = point_runs((e.dir / "results").string());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("tags").at("experiment_outcome"), "done");
  EXPECT_EQ(runs[1].at("tags").at("experiment_outcome"), "interrupted");
  EXPECT_EQ(runs[1].at("status"), "interrupted");

  const auto resume = run_ironbench(e.args("run", {"--dry-run"}));
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_TRUE(std::regex_search(resume.out, std::regex(R"(point 1/2: stored as run \d+, would be skipped)")))
      << resume.out;
  EXPECT_NE(resume.out.find("point 2/2: would run"), std::string::npos) << resume.out;
}

TEST(Experiment, AStepOptionItsCommandDoesNotHaveStopsEverythingBeforeItStarts) {
  experiment_dir e;
  e.recipe(
      "schema_version: 1\nname: bad-option\nmatrix: {c: [1, 2]}\nsteps:\n"
      "  - service:\n      command: sleep 30\n      ready: {log: never}\n"
      "  - serve:\n      url: http://127.0.0.1:9\n      options: {max-concurency: \"${c}\"}\n");
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err,
      std::regex(R"(recipe.yaml: step 'serve' of point 1 \(c=1\): ironbench serve: .*not expected.*--max-concurency)")))
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(e.dir / "results")) << "nothing may start";
}

// An import step: the tool's output (here a recorded ib_write_bw run the step copies) read by
// the importer of its format; output in another format fails the point with the importer's
// reason.
TEST(Experiment, ImportStepsReadAToolsOutputWithTheImporters) {
  experiment_dir e;
  e.recipe(std::string("schema_version: 1\nname: imports\nmatrix:\n  source: [write_a_gbits.txt, SOURCES.md]\n") +
           "steps:\n  - import:\n      name: ib-write-bw\n      command: cp " + IRONBENCH_TEST_DATA +
           "/perftest/${source} ib.txt\n      format: perftest\n      file: ib.txt\n");
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto runs = point_runs((e.dir / "results").string());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("tags").at("experiment_outcome"), "done");
  ASSERT_GT(runs[0].at("cases").size(), 10u) << "one case per message size";
  for (const auto& c : runs[0].at("cases")) {
    EXPECT_EQ(c.at("benchmark"), "ib_write_bw");
    EXPECT_GT(metric_of(c, "bw_average"), 0) << c.dump(1);
    EXPECT_EQ(c.at("notes").at("step"), "ib-write-bw");
  }
  EXPECT_EQ(runs[1].at("tags").at("experiment_outcome"), "failed");
  const auto* failed = case_of(runs[1], "ib-write-bw");
  ASSERT_NE(failed, nullptr);
  EXPECT_NE(failed->at("reason").get<std::string>().find("step 'ib-write-bw': "), std::string::npos);
}

// A serve step that reaches no server measured nothing: the point is failed, not done, so a
// resume runs it again.
TEST(Experiment, AServeStepThatReachesNoServerFailsThePoint) {
  experiment_dir e;
  e.recipe("schema_version: 1\nname: unreachable\nsteps:\n  - serve:\n      url: http://127.0.0.1:" +
           std::to_string(free_port()) + "\n      options: {num-prompts: 2, max-lateness-ms: 1000}\n");
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAILED: no request succeeded"), std::string::npos) << r.out;
  const auto runs = point_runs((e.dir / "results").string());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("tags").at("experiment_outcome"), "failed");
  const auto again = run_ironbench(e.args("run", {"--dry-run"}));
  EXPECT_NE(again.out.find("point 1/1: would run"), std::string::npos) << again.out;
}

// Recipes that grow past a bound of experiment/recipe_limits.hpp: nine levels of ten YAML
// aliases (10^9 scalars), variables that double each other 40 times, a matrix of 10 variables
// of 100 values (10^20 points).
std::string aliases_nine_levels_deep() {
  std::string text = "schema_version: 1\nname: laughs\nx0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 9; ++i) {
    const auto prev = "*l" + std::to_string(i - 1);
    text += "x" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) text += ", " + prev;
    text += "]\n";
  }
  return text;
}

std::string doubling_variables() {
  std::string text = "schema_version: 1\nname: doubling\nvariables:\n  a0: " + std::string(1024, 'x') + "\n";
  for (int i = 1; i <= 40; ++i) {
    text += "  a" + std::to_string(i) + ": '${a" + std::to_string(i - 1) + "}${a" + std::to_string(i - 1) + "}'\n";
  }
  return text;
}

std::string ten_by_hundred_matrix() {
  std::string text = "schema_version: 1\nname: grid\nmatrix:\n";
  for (int i = 0; i < 10; ++i) {
    text += "  v" + std::to_string(i) + ": [0";
    for (int v = 1; v < 100; ++v) text += ", " + std::to_string(v);
    text += "]\n";
  }
  return text;
}

// Each class of recipe error through `experiment run`: one line with file, line and column,
// exit 2, and nothing started (no results folder, no database row).
TEST(Experiment, BadRecipesStopWithTheirLocationBeforeAnythingStarts) {
  const std::string service = "steps:\n  - service: {command: 'sleep 30', ready: {log: up}}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {aliases_nine_levels_deep() + service,
       R"(recipe.yaml:\d+:\d+: the recipe expands to more than 100000 YAML nodes)"},
      {doubling_variables() + service,
       R"(recipe.yaml:\d+:\d+: a value expands to more than 1 MiB \(the limit of an expanded value\))"},
      {ten_by_hundred_matrix() + service,
       R"(recipe.yaml:6:\d+: the matrix has 100000000000000000000 points \(100 v0 x 100 v1 x 100 v2 x .*\), more )"
       R"(than 10000 \(the limit of points in a plan\))"},
      {"schema_version: 1\nname: ../../escape\n" + service,
       R"(recipe.yaml:2:7: the recipe's name '\.\./\.\./escape' cannot name a file)"},
      {"schema_version: 1\nname: x\nsteps:\n  - service: {name: \"a\\nb\", command: x, ready: {log: up}}\n",
       R"(recipe.yaml:4:5: step name 'a\\nb' cannot name a file)"},
      {"schema_version: 1\nname: x\ncolour: red\n" + service, R"(recipe.yaml:3:1: unknown key 'colour')"},
      {"schema_version: 1\nname: x\nrepeat: [1]\n" + service,
       R"(recipe.yaml:3:9: 'repeat' in the recipe must be a scalar)"},
      {"schema_version: 1\nname: x\nsteps:\n  - service: {command: '${nope}', ready: {log: up}}\n",
       R"(recipe.yaml:4:\d+: undefined variable 'nope')"},
      {"schema_version: 1\nname: x\nvariables: {a: '${b}', b: '${a}'}\n" + service,
       R"(recipe.yaml:3:\d+: variable '.' refers to itself)"},
      {"schema_version: 1\nname: x\nvariables: {profile: tpu}\nprofiles: {cpu: {}}\n" + service,
       R"(recipe.yaml:3:22: profile 'tpu' is not one of the recipe's profiles \(cpu\))"},
      {"schema_version: 1\nname: x\nsteps:\n  - service: {command: x, ready: {log: '(unclosed'}}\n",
       R"(recipe.yaml:4:\d+: .*bad regex)"},
  };
  for (const auto& [text, expected] : cases) {
    experiment_dir e;
    e.recipe(text);
    const auto r = run_ironbench(e.args("run"));
    EXPECT_EQ(r.exit_code, 2) << text << r.out << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("^ironbench: error: .*" + expected + ".*\n$"))) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line:\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(e.dir / "results")) << "nothing may start";
    EXPECT_FALSE(std::filesystem::exists(e.dir / "results.db"));
  }
}

// A server already answering at a service's address (a foreign one, or one an earlier run
// left) would pass the readiness check at once and be measured in the service's place: the
// point fails before the service starts, and the foreign server is left alone.
TEST(Experiment, AServiceWhoseAddressAlreadyAnswersFailsBeforeItStarts) {
  sim_process foreign;
  experiment_dir e;
  e.recipe(
      "schema_version: 1\nname: taken\nsteps:\n  - service:\n      name: engine\n"
      "      command: sleep 300\n      ready: {url: \"" +
      foreign.url() +
      "\", timeout: 20s}\n"
      "  - serve:\n      options: {num-prompts: 2, max-concurrency: 1}\n");
  const auto r = run_ironbench(e.args("run"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAILED: 127.0.0.1:" + std::to_string(foreign.port()) +
                       " already answers before service 'engine' starts"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("engine: started"), std::string::npos) << "nothing started: " << r.out;
  EXPECT_NE(http_get(foreign.port(), "/v1/models").value_or("").find("data"), std::string::npos)
      << "the foreign server runs on";
}

// Whether `pid` runs: not gone, and not a zombie left for its new parent to reap.
bool process_runs(int pid) {
  const auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  return !stat.empty() && stat.find(") Z ") == std::string::npos;
}

// The pid a command wrote to `path` (waiting up to 20 s for it), or -1.
int pid_written_to(const std::string& path) {
  for (int i = 0; i < 2000; ++i) {
    const auto text = read_file(path);
    if (!text.empty() && text.back() == '\n') return std::stoi(text);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

// A run killed with SIGKILL cannot stop its services itself: the keeper between it and each
// service (the kernel ties it to the runner with PR_SET_PDEATHSIG; it is the subreaper of the
// service's tree) ends the service, what it started in its group and what left the group with
// setsid. Before, serve-sim kept answering from under pid 1 until the next run stopped it.
TEST(Experiment, AKilledRunLeavesNoServiceRunning) {
  experiment_dir e;
  const auto escaped = (e.dir / "escaped.pid").string();
  const auto go = (e.dir / "go").string();
  const int port = free_port();
  e.recipe(
      "schema_version: 1\nname: killed\nsteps:\n  - service:\n      name: engine\n"
      "      command: setsid sleep 300 & echo $! > " +
      escaped + "; exec " + std::string(ironbench_binary()) + " serve-sim --port " + std::to_string(port) +
      "\n"
      "      ready: {url: \"http://127.0.0.1:" +
      std::to_string(port) +
      "\", model: ironbench-sim, timeout: 30s}\n"
      "      stop_grace: 5s\n"
      "  - command:\n      command: \"while [ ! -f " +
      go +
      " ]; do sleep 0.1; done; echo 'performance: 1 x'\"\n"
      "      metrics: [{performance: true}]\n");
  auto first = start_ironbench(e.args("run"));
  const int left = pid_written_to(escaped);
  ASSERT_GT(left, 0);
  ASSERT_TRUE(wait_for_output(
      first, [](const std::string& out) { return out.find("engine: ready") != std::string::npos; }, 120, false))
      << read_file(first.out_path) << read_file(first.err_path);
  const auto shell = started_pids(read_file(first.out_path));
  ASSERT_EQ(shell.size(), 1U);
  ASSERT_TRUE(http_get(port, "/v1/models").has_value()) << "the service answers";
  kill(first.pid, SIGKILL);
  EXPECT_EQ(wait_for(first).exit_code, 128 + SIGKILL);
  const auto killed = clock::now();
  while (seconds_since(killed) < 10 &&
         (http_get(port, "/v1/models") || process_runs(shell.front()) || process_runs(left))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(http_get(port, "/v1/models").has_value()) << "the service still answers 10 s after its runner died";
  EXPECT_FALSE(process_runs(shell.front())) << "the service ends with the runner";
  EXPECT_FALSE(process_runs(left)) << "what left its group ends with the runner too";

  // The next run finds nothing left to stop, and runs.
  std::filesystem::remove(escaped);
  std::ofstream(go) << "go\n";
  const auto second = run_ironbench(e.args("run"));
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_EQ(second.out.find("of an earlier run was still running"), std::string::npos) << second.out;
  const int again = pid_written_to(escaped);
  ASSERT_GT(again, 0);
  EXPECT_FALSE(process_runs(again)) << "the second run's own escaped process is stopped with its service";
  expect_none_left(second.out);
}

// `experiment plan` names the number of points and the grid they come from.
TEST(Experiment, PlanShowsThePointCountAndTheGrid) {
  experiment_dir e;
  e.recipe(
      "schema_version: 1\nname: grid\nmatrix: {c: [1, 2, 3], n: [a, b]}\nsteps:\n"
      "  - command: {command: 'echo ${c}${n}', metrics: [{performance: true}]}\n");
  const auto r = run_ironbench({"experiment", "plan", (e.dir / "recipe.yaml").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(": 6 points (3 c x 2 n) x 1 repeat\n"), std::string::npos) << r.out;
}

// Every recipe of examples/recipes runs in its CPU profile: each point done, every case valid,
// nothing left running.
class ShippedRecipe : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedRecipe, RunsInItsCpuProfile) {
  // The recipes check what they describe, not memory safety: the experiment machinery runs
  // under the sanitizers in the Experiment tests above.
  if (IRONBENCH_SANITIZED_BUILD) GTEST_SKIP() << "a sanitized build: the recipes run in the release build's tests";
  if (!IRONBENCH_HAS_TRAINING || !IRONBENCH_HAS_MPI) {
    GTEST_SKIP() << "this build has no ironbench train (libtorch) or no MPI, which the CPU profiles use";
  }
  const temp_dir dir("ironbench_recipe_");
  const std::string recipe = std::string(IRONBENCH_SOURCE_DIR) + "/examples/recipes/" + GetParam() + ".yaml";
  const auto r = run_ironbench({"experiment", "run", recipe, "--set", "profile=cpu", "--db", (dir / "r.db").string(),
                                "--results-dir", (dir / "results").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(: \d+ done, 0 invalid, 0 failed, 0 already stored)"))) << r.out;
  expect_none_left(r.out);
  const auto runs = point_runs((dir / "results").string());
  ASSERT_FALSE(runs.empty());
  for (const auto& run : runs) {
    EXPECT_EQ(run.at("tags").at("experiment_outcome"), "done");
    EXPECT_FALSE(run.at("cases").empty()) << run.at("tags").dump();
    for (const auto& c : run.at("cases")) EXPECT_EQ(c.at("status"), "valid") << c.dump(1);
  }
  // The GPU profile (the default) plans too: every variable resolves, every option parses.
  const auto plan = run_ironbench({"experiment", "plan", recipe});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
}

INSTANTIATE_TEST_SUITE_P(Examples, ShippedRecipe,
                         ::testing::Values("baremetal-vs-vm", "baremetal-container-partition", "mi355x-vs-b200",
                                           "mi350x-training", "mi300x-405b-serving"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace ironbench::testing
