// Runs the real binary end to end and checks what it writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/json.hpp"
#include "files.hpp"
#include "platform/cpu_load.hpp"
#include "process.hpp"
#include "run_json.hpp"

namespace ironbench::testing {
namespace {

double metric(const json& c, const std::string& name) {
  for (const auto& m : c.at("metrics")) {
    if (m.at("name") == name) return m.at("value").get<double>();
  }
  ADD_FAILURE() << "no metric " << name << " in " << c.dump();
  return 0;
}

const std::vector<std::string> quick = {"--warmup", "0", "--min-time", "0", "--max-time", "0.2s"};

TEST(EndToEnd, RunWritesVerifiedConsistentResultsInEveryFormat) {
  const auto dir = make_temp_dir("ironbench_e2e_");
  std::vector<std::string> args{"run",
                                "stream",
                                "gemm",
                                "--device",
                                "cpu",
                                "--axis",
                                "stream:size=4M",
                                "--axis",
                                "gemm:M=64,96",
                                "--axis",
                                "dtype=fp64,fp32",
                                "--json",
                                dir + "/run.json",
                                "--csv",
                                dir + "/run.csv",
                                "--md",
                                dir + "/run.md",
                                "--results-dir",
                                dir + "/saved",
                                "-q"};
  args.insert(args.end(), quick.begin(), quick.end());
  const auto r = run_ironbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;

  const auto run = read_json(dir + "/run.json");
  EXPECT_EQ(run.at("schema_version"), 1);
  EXPECT_EQ(run.at("status"), "valid");
  EXPECT_EQ(run.at("tool").at("name"), "ironbench");
  EXPECT_EQ(run.at("argv").size(), args.size() + 1);
  EXPECT_FALSE(run.at("host").at("cpu").at("model_name").get<std::string>().empty());
  EXPECT_GE(run.at("host").at("cpu").at("logical_cpus").get<int>(), 1);
  EXPECT_EQ(run.at("devices").at(0).at("id"), "cpu");
  EXPECT_LE(run.at("start_time").get<std::string>(), run.at("end_time").get<std::string>());

  const auto& cases = run.at("cases");
  ASSERT_EQ(cases.size(), 12u + 4u);  // stream: 2 dtypes x 6 kernels; gemm: 2 dtypes x 2 squares
  const std::map<std::string, int> weights{{"copy", 2},  {"mul", 2}, {"add", 3},
                                           {"triad", 3}, {"dot", 2}, {"nstream", 4}};
  for (const auto& c : cases) {
    ASSERT_EQ(c.at("status"), "valid") << c.dump();
    const auto& stats = c.at("time").at("statistics");
    const double median = stats.at("median").get<double>();
    ASSERT_GT(median, 0.0);
    EXPECT_LE(stats.at("min").get<double>(), median);
    EXPECT_LE(median, stats.at("max").get<double>());
    EXPECT_EQ(stats.at("count").get<std::size_t>(), c.at("time").at("samples").size());
    const auto& work = c.at("work");
    if (c.at("benchmark") == "stream") {
      const auto& p = c.at("params");
      EXPECT_EQ(p.at("size"), 4 << 20);
      const double bytes = weights.at(p.at("kernel").get<std::string>()) * 4.0 * (1 << 20);
      EXPECT_DOUBLE_EQ(work.at("bytes_read").get<double>() + work.at("bytes_written").get<double>(), bytes);
      EXPECT_NEAR(metric(c, "bandwidth"), bytes / median / 1e9, 1e-9 * metric(c, "bandwidth"));
      EXPECT_EQ(c.at("param_units").at("size"), "B");
    } else {
      const auto m = c.at("params").at("M").get<double>();
      EXPECT_EQ(c.at("params").at("N"), c.at("params").at("M"));  // --axis M alone: squares
      EXPECT_DOUBLE_EQ(work.at("flops").get<double>(), 2 * m * m * m);
      EXPECT_NEAR(metric(c, "tflops"), 2 * m * m * m / median / 1e12, 1e-9 * metric(c, "tflops"));
      EXPECT_NE(c.at("notes").at("verification").get<std::string>().find("sampled elements"), std::string::npos);
    }
  }

  std::vector<std::filesystem::path> saved;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/saved")) saved.push_back(e.path());
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(read_json(saved[0].string()).at("cases").size(), cases.size());

  std::ifstream csv(dir + "/run.csv");
  std::string line;
  std::size_t rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, cases.size() + 1);

  std::ifstream md(dir + "/run.md");
  const std::string markdown((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(markdown.find("## stream on cpu"), std::string::npos);
  EXPECT_NE(markdown.find("## gemm on cpu"), std::string::npos);

  EXPECT_NE(r.out.find("run valid: 16 valid, 0 invalid, 0 skipped, 0 failed"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(EndToEnd, JsonToStdoutKeepsStdoutPure) {
  std::vector<std::string> args{"run",          "stream", "--axis", "size=1M",  "--axis",
                                "kernel=triad", "--json", "-",      "--no-save"};
  args.insert(args.end(), quick.begin(), quick.end());
  const auto r = run_ironbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);  // throws if anything else was printed
  EXPECT_EQ(run.at("cases").size(), 1u);
  EXPECT_NE(r.err.find("run valid"), std::string::npos);  // the console summary moved to stderr
  EXPECT_NE(r.err.find("[1/1] stream on cpu"), std::string::npos);
}

TEST(EndToEnd, AnUnstableCaseCarriesItsCvAndTheLoadOfABusyHost) {
  // A process spinning on every CPU beside the run: the load every case records.
  std::vector<pid_t> spinners;
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i) {
    const pid_t spinner = fork();
    ASSERT_GE(spinner, 0);
    if (spinner == 0) {
      volatile unsigned long spins = 0;
      for (;;) spins = spins + 1;
    }
    spinners.push_back(spinner);
  }
  // A threshold no real timing stays under marks the case, so the whole path is seen. Half a
  // second of timing gives /proc/stat (100 ticks a second per CPU) enough ticks to tell shares.
  std::vector<std::string> args{
      "run", "stream",    "--axis",   "size=1M", "--axis",     "kernel=triad", "--unstable-cv", "1e-9", "--json",
      "-",   "--no-save", "--warmup", "0",       "--min-time", "0.5s",         "--max-time",    "0.5s"};
  // The host's own account over the whole run says whether /proc/stat sees the spinners at all.
  const platform::sysfs_reader host_root("/");
  const auto host_before = platform::read_cpu_times(host_root);
  const auto r = run_ironbench(args);
  const auto host_after = platform::read_cpu_times(host_root);
  for (const pid_t spinner : spinners) {
    kill(spinner, SIGKILL);
    waitpid(spinner, nullptr, 0);
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;  // unstable cases are still valid
  const auto run = json::parse(r.out);
  EXPECT_DOUBLE_EQ(run.at("settings").at("unstable_cv").get<double>(), 1e-9);
  const auto& c = run.at("cases").at(0);
  EXPECT_EQ(c.at("status"), "valid");
  ASSERT_TRUE(c.contains("unstable")) << c.dump();
  ASSERT_TRUE(host_before && host_after);
  if (host_after->total() <= host_before->total()) {
    // A sandbox whose /proc/stat stands still: the load is unknown, and no share is made up.
    EXPECT_FALSE(c.contains("host_load")) << c.at("host_load").dump();
    EXPECT_FALSE(c.at("unstable").contains("host_load"));
    GTEST_SKIP() << "this host's /proc/stat does not advance; the load's value cannot be judged here";
  }
  const double host_busy_share =
      (host_after->busy() - host_before->busy()) / (host_after->total() - host_before->total());
  ASSERT_TRUE(c.contains("host_load")) << c.dump();
  // The spinners keep every CPU busy by the host's own account; then the case's share for other
  // processes is large (half the CPUs' time or more: the run's own threads share them).
  EXPECT_GT(host_busy_share, 0.8) << "the spinners did not keep the host busy, by its /proc/stat";
  EXPECT_GT(c.at("host_load").at("others_percent").get<double>(), 20.0)
      << c.at("host_load").dump() << "; the host was busy " << 100 * host_busy_share << " % of the run";
  EXPECT_EQ(c.at("unstable").at("host_load"), c.at("host_load"));
  EXPECT_NE(c.at("unstable").at("reason").get<std::string>().find("other processes used"), std::string::npos);
  EXPECT_NE(r.err.find("valid, UNSTABLE (robust CV"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run valid: 1 valid, 0 invalid, 0 skipped, 0 failed; 1 of the valid unstable"),
            std::string::npos)
      << r.err;

  // The default threshold (50 %) and a usage error for a negative one.
  const auto steady = run_ironbench({"run", "stream", "--axis", "size=1M", "--axis", "kernel=triad", "--max-time",
                                     "0.2s", "--json", "-", "--no-save", "-q"});
  ASSERT_EQ(steady.exit_code, 0) << steady.err;
  EXPECT_DOUBLE_EQ(json::parse(steady.out).at("settings").at("unstable_cv").get<double>(), 0.5);
  EXPECT_TRUE(json::parse(steady.out).at("cases").at(0).contains("host_load"));
  const auto negative = run_ironbench({"run", "stream", "--unstable-cv", "-1", "--no-save"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--unstable-cv must not be negative"), std::string::npos) << negative.err;
}

TEST(EndToEnd, MaxTimeAloneShortensTheMinimumTime) {
  const auto r = run_ironbench({"run", "stream", "--axis", "size=1M", "--axis", "kernel=dot", "--max-time", "0.1s",
                                "--json", "-", "--no-save", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(json::parse(r.out).at("settings").at("min_time_s").get<double>(), 0.1);
}

TEST(EndToEnd, InterruptWritesPartialResults) {
  const auto dir = make_temp_dir("ironbench_interrupt_");
  const auto p = start_ironbench({"run", "stream", "--axis", "size=1M:16M:x2", "--min-time", "1s", "--max-time", "1s",
                                  "--target-cv", "0", "--json", dir + "/run.json", "--no-save"});
  // Interrupted once the first case is under way (a sanitized binary can take seconds to start).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (read_file(p.err_path).find("] stream on cpu") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(p.pid, SIGINT);
  const auto r = wait_for(p);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  const auto run = read_json(dir + "/run.json");
  EXPECT_EQ(run.at("status"), "interrupted");
  EXPECT_GE(run.at("cases").size(), 1u);  // the case cut short is kept too
  EXPECT_LT(run.at("cases").size(), 30u);
  std::filesystem::remove_all(dir);
}

TEST(EndToEnd, SysinfoListAndVersion) {
  const auto info = run_ironbench({"sysinfo", "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto doc = json::parse(info.out);
  EXPECT_GE(doc.at("host").at("cpu").at("logical_cpus").get<int>(), 1);
  EXPECT_GT(doc.at("host").at("memory").at("total_bytes").get<double>(), 0);
  EXPECT_FALSE(doc.at("host").at("environment_kind").get<std::string>().empty());
  EXPECT_EQ(doc.at("devices").at(0).at("id"), "cpu");

  const auto text = run_ironbench({"sysinfo"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("Environment"), std::string::npos);

  const auto list = run_ironbench({"list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("gemm"), std::string::npos);
  EXPECT_NE(list.out.find("stream"), std::string::npos);
  EXPECT_NE(list.out.find("copy,mul,add,triad,dot,nstream"), std::string::npos);

  const auto version = run_ironbench({"version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(json::parse(version.out).at("features").contains("cuda"));
}

}  // namespace
}  // namespace ironbench::testing
