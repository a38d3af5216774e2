// The collectives command under a real MPI launcher, ranks on this machine (oversubscribed).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// What the Open MPI processes this test starts need: to run as root in a CI container and,
// under the asan preset, LeakSanitizer's options for Open MPI (tests/CMakeLists.txt).
void set_mpi_environment() {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  if (std::getenv("LSAN_OPTIONS") != nullptr) setenv("LSAN_OPTIONS", IRONBENCH_MPI_LSAN_OPTIONS, 1);
}

// mpirun with the settings a root-run CI container needs; empty when there is no mpirun.
std::vector<std::string> mpirun(int ranks) {
  set_mpi_environment();
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
  setenv("OMPI_MCA_btl", "self,vader,tcp", 0);  // shared memory and loopback, no fabric probing
  return {"--oversubscribe", "-np", std::to_string(ranks), IRONBENCH_BINARY, "collectives"};
}

#define REQUIRE_MPIRUN() \
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)"

// Every collective, element type and operation, in and out of place, from 8 bytes up to
// `largest` by factors of 8, each element checked.
void every_collective_type_and_op_is_exact(int ranks, const char* largest) {
  auto args = mpirun(ranks);
  for (auto a : {"all", "-d", "all", "-o", "all",       "-b", "8",      "-e", largest,     "-f",  "8",
                 "-n",  "3",  "-w",  "1",  "--no-save", "-q", "--json", "-",  "--timeout", "120s"}) {
    args.emplace_back(a);
  }
  const auto r = wait_for(start_program("mpirun", args));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  std::size_t valid = 0;
  std::set<std::string> collectives, types, ops;
  std::map<std::string, double> wrong_by_placement;
  for (const auto& c : doc.at("cases")) {
    EXPECT_EQ(c.at("status"), "valid") << c.dump();
    const auto& p = c.at("params");
    collectives.insert(p.at("collective").get<std::string>());
    types.insert(p.at("dtype").get<std::string>());
    ops.insert(p.at("op").get<std::string>());
    EXPECT_EQ(p.at("ranks"), ranks);
    for (const auto& m : c.at("metrics")) {
      if (m.at("name") == "wrong") wrong_by_placement[p.at("placement")] += m.at("value").get<double>();
    }
    ++valid;
  }
  EXPECT_EQ(collectives.size(), 8u);
  EXPECT_EQ(types.size(), 6u);
  EXPECT_EQ(ops, (std::set<std::string>{"sum", "prod", "max", "min", "avg", "none"}));
  // Both placements ran and both matched the exact expected values everywhere, so in-place
  // results equal out-of-place results.
  EXPECT_EQ(wrong_by_placement.size(), 2u);
  EXPECT_EQ(wrong_by_placement["in-place"], 0);
  EXPECT_EQ(wrong_by_placement["out-of-place"], 0);
  EXPECT_GT(valid, 300u);
  EXPECT_EQ(doc.at("host").at("ranks").size(), static_cast<std::size_t>(ranks));
  EXPECT_EQ(doc.at("settings").at("ranks"), ranks);
  EXPECT_NE(r.err.find("# Out of bounds values : 0 OK"), std::string::npos) << r.err;
}

TEST(CollectivesMpi, TwoRanksEveryCollectiveTypeAndOpIsExact) {
  REQUIRE_MPIRUN();
  // Instrumented, the 256 KiB step is half of this test's time (13.4 s against 6.6 s up to
  // 32 KiB on an idle machine; the test took 51 s beside a build): the sanitizers check every
  // collective, type, operation and placement up to 32 KiB, the release build's four ranks up
  // to 256 KiB.
  every_collective_type_and_op_is_exact(2, IRONBENCH_SANITIZED_BUILD ? "32K" : "256K");
}

TEST(CollectivesMpi, FourRanksEveryCollectiveTypeAndOpIsExact) {
  REQUIRE_MPIRUN();
  // Four oversubscribed ranks of an instrumented binary take 40 s on two cores: the sanitizers
  // check the same code with two ranks, and the release build checks four.
  if (IRONBENCH_SANITIZED_BUILD) GTEST_SKIP() << "a sanitized build: two ranks here, four in the release build";
  every_collective_type_and_op_is_exact(4, "256K");
}

TEST(CollectivesMpi, TableHasNcclTestsColumnsAndTrialsReportSpread) {
  REQUIRE_MPIRUN();
  auto args = mpirun(2);
  for (auto a : {"all_reduce", "-b", "1M", "-e", "2M", "--trials", "3", "--no-save", "-q"}) args.emplace_back(a);
  const auto r = wait_for(start_program("mpirun", args));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#       size         count      type   redop    root     time   algbw   busbw  #wrong"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("     1048576        262144     float     sum      -1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Avg bus bandwidth    : "), std::string::npos);
  EXPECT_NE(r.out.find("# Avg bus bandwidth (sizes >= 1 MiB) : "), std::string::npos);
  EXPECT_NE(r.out.find("# 3 trials: busbw mean, sample stdev and CV per size"), std::string::npos);
  EXPECT_NE(r.out.find("# trial 3 of 3"), std::string::npos);
}

void fails_in_bounded_time(const char* fault, int expected_rank_in_message) {
  auto args = mpirun(2);
  for (auto a : {"-b", "8", "-e", "1K", "--no-save", "-q", "--timeout", "3s", "--inject-fault"}) args.emplace_back(a);
  args.emplace_back(fault);
  const auto start = std::chrono::steady_clock::now();
  const auto r = wait_for(start_program("mpirun", args));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(r.exit_code, 0);
  // Ended by the 3 s timeout or the dead rank, not by the hang: the whole job's time.
  expect_time_not_above("the failing job's time, a --timeout of 3 s", seconds, 0, 60, "s");
  const auto all = r.out + r.err;
  if (expected_rank_in_message >= 0) {
    // Rank 0 names the rank the job waits for (comm/progress_channel.hpp).
    EXPECT_NE(all.find("the job waits for rank " + std::to_string(expected_rank_in_message) + " (host "),
              std::string::npos)
        << all;
  } else {
    EXPECT_NE(all.find("exits now"), std::string::npos) << all;
  }
}

TEST(CollectivesMpiTimed, AHangingRankEndsTheRunWithAnErrorInBoundedTime) {
  REQUIRE_MPIRUN();
  fails_in_bounded_time("hang@1", 1);
}

TEST(CollectivesMpiTimed, ADeadRankEndsTheRunWithAnError) {
  REQUIRE_MPIRUN();
  fails_in_bounded_time("exit@1", -1);
}

}  // namespace
}  // namespace ironbench::testing

namespace ironbench::testing {
namespace {

// `command` with `args` on `ranks` ranks that must fail; returns its standard error.
std::string failing_run(int ranks, const char* command, std::initializer_list<const char*> args) {
  auto line = mpirun(ranks);
  line.back() = command;
  for (auto a : args) line.emplace_back(a);
  for (auto a : {"--no-save", "-q", "--timeout", "30s"}) line.emplace_back(a);
  const auto r = wait_for(start_program("mpirun", line));
  EXPECT_NE(r.exit_code, 0) << r.err;
  return r.err;
}

TEST(CollectivesMpi, GraphModeRanksPerProcessAndAForcedGpuBackendWithoutGpusAreUsageErrors) {
  REQUIRE_MPIRUN();
  auto err = failing_run(2, "collectives", {"all_reduce", "--backend", "mpi", "-G", "4"});
  EXPECT_NE(err.find("--cudagraph 4: MPI backends have no GPU graphs"), std::string::npos) << err;
  // Both ranks agree that two of two lack a GPU (or, in a build without NCCL, say so).
  err = failing_run(2, "collectives", {"all_reduce", "--backend", "nccl"});
  EXPECT_TRUE(err.find("2 of 2 ranks have no GPU") != std::string::npos || err.find("nccl") != std::string::npos)
      << err;
  // MPI on GPU memory needs GPUs too (and then an MPI that says it takes device pointers).
  err = failing_run(2, "collectives", {"all_reduce", "--backend", "mpi-gpu"});
  EXPECT_TRUE(err.find("--backend mpi-gpu: 2 of 2 ranks have no GPU") != std::string::npos ||
              err.find("--backend mpi-gpu: this build has no GPU runtime") != std::string::npos)
      << err;
  // Several ranks per process (nccl-tests' -t/-g) are GPU ranks.
  err = failing_run(2, "collectives", {"all_reduce", "--backend", "mpi", "-t", "2"});
  EXPECT_NE(err.find("--nthreads/--ngpus 2: several ranks per process need GPU collectives"), std::string::npos) << err;
  err = failing_run(2, "collectives", {"all_reduce", "-g", "0"});
  EXPECT_NE(err.find("--nthreads and --ngpus must be at least 1"), std::string::npos) << err;
}

TEST(TpInferMpi, TwoRanksVerifyAndCompareWithOneDevice) {
  REQUIRE_MPIRUN();
  auto args = mpirun(2);
  args.back() = "tp_infer";
  for (auto a : {"--batch", "64,256", "--hidden", "256", "-n", "3", "-w", "1", "--no-save", "--json", "-"}) {
    args.emplace_back(a);
  }
  const auto r = wait_for(start_program("mpirun", args));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc.at("cases").size(), 4u);
  for (const auto& c : doc.at("cases")) {
    EXPECT_EQ(c.at("status"), "valid") << c.dump();
    EXPECT_EQ(c.at("benchmark"), "tp_infer");
  }
  const auto& tp = doc.at("cases")[0];
  EXPECT_EQ(tp.at("params").at("mode"), "tensor_parallel");
  EXPECT_EQ(tp.at("params").at("ranks"), 2);
  bool has_speedup = false;
  for (const auto& m : tp.at("metrics")) has_speedup = has_speedup || m.at("name") == "speedup";
  EXPECT_TRUE(has_speedup);
  EXPECT_EQ(doc.at("cases")[1].at("params").at("mode"), "single_device");
  EXPECT_NE(r.err.find("TP latency ms"), std::string::npos) << r.err;
}

TEST(TpInferMpi, GpuBackendsWithoutGpusAndUnknownBackendsAreUsageErrors) {
  REQUIRE_MPIRUN();
  auto err = failing_run(2, "tp_infer", {"--backend", "nccl"});
  EXPECT_TRUE(err.find("--backend nccl: 2 of 2 ranks have no GPU") != std::string::npos ||
              err.find("--backend nccl: this build has no GPU collectives") != std::string::npos)
      << err;
  err = failing_run(1, "tp_infer", {"--backend", "shm"});
  EXPECT_NE(err.find("unknown --backend 'shm' (auto, mpi, nccl, rccl)"), std::string::npos) << err;
}

TEST(TpInferMpi, ModelThatDoesNotSplitIsAUsageError) {
  REQUIRE_MPIRUN();
  auto args = mpirun(3);
  args.back() = "tp_infer";
  for (auto a : {"--hidden", "100", "--no-save"}) args.emplace_back(a);  // F = 400 over 3 ranks
  const auto r = wait_for(start_program("mpirun", args));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("does not split over 3 ranks"), std::string::npos) << r.err;
}

// SIGINT to a one-rank job (MPI's singleton start-up, no launcher) once its step line on
// standard error shows `step`: the rank finishes the step under way, writes what it measured
// with status interrupted and exits 130.
json interrupted_run(const std::vector<std::string>& args, const std::string& step, const std::string& dir) {
  auto line = args;
  for (const auto& a : {std::string("--no-save"), std::string("--json"), dir + "/run.json"}) line.push_back(a);
  set_mpi_environment();
  const auto p = start_ironbench(line);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (read_file(p.err_path).find(step) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(p.pid, SIGINT);
  const auto r = wait_for(p);
  EXPECT_NE(r.err.find(step), std::string::npos) << r.err;
  EXPECT_EQ(r.exit_code, 130) << r.err;
  return json::parse(read_file(dir + "/run.json"));
}

TEST(CollectivesMpi, InterruptedRunWritesTheSizesMeasured) {
  REQUIRE_MPIRUN();
  const auto dir = make_temp_dir("ironbench-collectives-interrupt");
  // 8 B .. 256 MiB, 200 iterations each and 50 trials: minutes, cut after three seconds.
  // Once the 16 B step starts, 8 B is measured.
  const auto doc =
      interrupted_run({"collectives", "all_reduce", "-b", "8", "-e", "256M", "-n", "200", "-w", "1", "--trials", "50"},
                      "[all_reduce 16 B out of place]", dir);
  EXPECT_EQ(doc.at("status"), "interrupted");
  EXPECT_NE(doc.at("status_reason").get<std::string>().find("the sizes measured so far are kept"), std::string::npos);
  ASSERT_GE(doc.at("cases").size(), 2u);  // at least the first size, both placements
  EXPECT_LT(doc.at("cases").size(), 2u * 26u);
  for (const auto& c : doc.at("cases")) EXPECT_EQ(c.at("status"), "valid") << c.dump();
  std::filesystem::remove_all(dir);
}

TEST(TpInferMpi, InterruptedRunWritesTheCasesMeasured) {
  REQUIRE_MPIRUN();
  const auto dir = make_temp_dir("ironbench-tp-interrupt");
  const auto doc = interrupted_run(
      {"tp-infer", "--batch", "64:65536:x2", "--hidden", "1024", "--iters", "40", "--warmup_iters", "0"},
      "[tp_infer batch 128 hidden 1024 on 1 ranks]", dir);
  EXPECT_EQ(doc.at("status"), "interrupted");
  const auto cases = doc.at("cases").size();
  EXPECT_EQ(cases % 2, 0u);  // tensor-parallel and single-device cases in pairs
  EXPECT_GE(cases, 2u);      // batch 64 at least
  EXPECT_LT(cases, 2u * 11u);
  for (const auto& c : doc.at("cases")) EXPECT_EQ(c.at("status"), "valid") << c.dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ironbench::testing
