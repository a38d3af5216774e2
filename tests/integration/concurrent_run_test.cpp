// ironbench run over several stand-in GPUs (IRONBENCH_STAND_IN_GPUS, device/stand_in_gpus.hpp):
// the GPUs side by side and what the outputs say of it, --sequential, a GPU that fails, fails
// its check, runs slow or hangs, the --time-limit check and --estimate.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "run_json.hpp"

namespace ironbench::testing {
namespace {

// Sets the stand-ins for the processes started while it lives.
struct stand_in_gpus {
  explicit stand_in_gpus(const std::string& spec, const std::string& scale = "0.002") {
    setenv("IRONBENCH_STAND_IN_GPUS", spec.c_str(), 1);
    setenv("IRONBENCH_STAND_IN_TIME_SCALE", scale.c_str(), 1);
  }
  ~stand_in_gpus() {
    unsetenv("IRONBENCH_STAND_IN_GPUS");
    unsetenv("IRONBENCH_STAND_IN_TIME_SCALE");
  }
};

std::vector<json> cases_of(const json& run, const std::string& device) {
  std::vector<json> out;
  for (const auto& c : run.at("cases")) {
    if (c.at("device") == device) out.push_back(c);
  }
  return out;
}

TEST(ConcurrentRun, StandInGpusRunSideBySideAndTheOutputsSaySo) {
  const stand_in_gpus gpus("3");
  const auto dir = make_temp_dir("ironbench_concurrent_");
  const auto r = run_ironbench({"run", "stream", "gemm", "--device", "cuda", "--json", dir + "/run.json", "--no-save"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = read_json(dir + "/run.json");
  EXPECT_EQ(run.at("settings").at("schedule").at("mode"), "concurrent");
  for (const char* device : {"cuda:0", "cuda:1", "cuda:2"}) {
    const auto cases = cases_of(run, device);
    EXPECT_EQ(cases.size(), 12u + 20u) << device;  // the first look: stream at 2 sizes, gemm 14 + 6
    std::size_t beside = 0;
    for (const auto& c : cases) {
      EXPECT_TRUE(c.at("status") == "valid" || c.at("status") == "skipped") << c.dump();
      EXPECT_EQ(c.at("schedule").at("stage"), "gpus");
      beside += c.at("schedule").at("concurrent_with").empty() ? 0 : 1;
    }
    EXPECT_GT(beside, cases.size() / 2) << device << ": most of its cases ran beside another GPU's";
  }
  EXPECT_NE(r.err.find("plan: 96 cases, at most about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[cuda:1  "), std::string::npos) << r.err;  // lines name their device
  EXPECT_NE(r.err.find("s left)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("schedule:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUs side by side, one case at a time per GPU: cuda:0, cuda:1, cuda:2"), std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

TEST(ConcurrentRun, SequentialRunsOneCaseAtATimeInOrder) {
  const stand_in_gpus gpus("2");
  const auto r = run_ironbench(
      {"run", "stream", "--device", "cuda", "--sequential", "--axis", "size=16M", "--json", "-", "--no-save"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  EXPECT_EQ(run.at("settings").at("schedule").at("mode"), "sequential");
  double previous_end = 0;
  for (const auto& c : run.at("cases")) {
    const auto& s = c.at("schedule");
    EXPECT_EQ(s.at("stage"), "sequential");
    EXPECT_TRUE(s.at("concurrent_with").empty());
    EXPECT_GE(s.at("start_s").get<double>(), previous_end - 1e-6);
    previous_end = s.at("start_s").get<double>() + s.at("wall_s").get<double>();
  }
  EXPECT_EQ(run.at("cases").at(0).at("device"), "cuda:0");
  EXPECT_NE(r.err.find("[ 1/12] stream on cuda:0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[ 7/12] stream on cuda:1"), std::string::npos) << r.err;
}

TEST(ConcurrentRun, AFailingAWrongAndASlowGpuLeaveTheOthersMeasuredAndNamed) {
  const stand_in_gpus gpus("4,cuda:1=fail,cuda:2=wrong,cuda:3=slow");
  const auto r = run_ironbench({"run", "stream", "--device", "cuda", "--json", "-", "--no-save"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto run = json::parse(r.out);
  for (const auto& c : cases_of(run, "cuda:0")) EXPECT_EQ(c.at("status"), "valid");
  for (const auto& c : cases_of(run, "cuda:1")) {
    EXPECT_EQ(c.at("status"), "failed");
    EXPECT_EQ(c.at("reason"), "cuda:1 stopped answering (a stand-in made to fail)");
  }
  for (const auto& c : cases_of(run, "cuda:2")) {
    EXPECT_EQ(c.at("status"), "invalid");
    EXPECT_TRUE(c.contains("time"));  // measured, kept, flagged
  }
  for (const auto& c : cases_of(run, "cuda:3")) EXPECT_EQ(c.at("status"), "valid");
  const auto& slow = run.at("settings").at("slow_devices");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].at("device"), "cuda:3");
  EXPECT_EQ(slow[0].at("verdict"), "FAIL");
  EXPECT_NE(r.err.find("slow devices: cuda:3 FAIL: stream"), std::string::npos) << r.err;
}

TEST(ConcurrentRun, AHungGpuIsNamedWithinTheCaseTimeLimitAndTheOthersAreWritten) {
  const stand_in_gpus gpus("3,cuda:1=hang");
  const auto dir = make_temp_dir("ironbench_hung_");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_ironbench({"run", "stream", "--device", "cuda", "--case-time-limit", "2s", "--json",
                                dir + "/run.json", "--md", dir + "/run.md", "--no-save"});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LT(wall, 60.0);
  const auto run = read_json(dir + "/run.json");
  EXPECT_EQ(run.at("settings").at("schedule").at("lost_devices"), json::array({"cuda:1"}));
  const auto hung = cases_of(run, "cuda:1");
  ASSERT_EQ(hung.size(), 12u);
  EXPECT_EQ(hung[0].at("status"), "failed");
  EXPECT_NE(
      hung[0].at("reason").get<std::string>().find("no result within the case's time limit of 2.0 s: cuda:1 hung"),
      std::string::npos)
      << hung[0].dump();
  for (std::size_t i = 1; i < hung.size(); ++i) {
    EXPECT_EQ(hung[i].at("status"), "skipped");
    EXPECT_NE(hung[i].at("reason").get<std::string>().find("not run: cuda:1 did not end stream"), std::string::npos);
  }
  for (const char* device : {"cuda:0", "cuda:2"}) {
    for (const auto& c : cases_of(run, device)) EXPECT_EQ(c.at("status"), "valid") << c.dump();
  }
  EXPECT_NE(r.out.find("lost devices: cuda:1: stream"), std::string::npos) << r.out;
  EXPECT_NE(read_file(dir + "/run.md").find("cuda:1"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ConcurrentRun, ARunOverItsTimeLimitIsRefusedBeforeItStarts) {
  const stand_in_gpus gpus("2");
  const auto r = run_ironbench({"run", "--device", "cuda", "--time-limit", "20s", "--no-save"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("this run is estimated at up to"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("over --time-limit 20 s"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("] stream"), std::string::npos) << "nothing ran";
}

TEST(ConcurrentRun, EstimateListsTheCasesOfEachGpu) {
  const stand_in_gpus gpus("8");
  const auto r = run_ironbench({"run", "--device", "cuda", "--estimate"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("estimate: 328 cases"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  cuda:7       41 cases"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peers"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ironbench::testing
