// ironbench validate on this machine's CPU: the quick level finishes within a minute with a
// verdict per check and an exit code that follows the rules; OpenBLAS forced onto old kernels
// FAILs; a fleet's golden node's stored runs serve as the expectation. The suite is *Timed: it
// runs alone (its GEMM on both cores would disturb the timing of tests beside it, and theirs
// its verdicts).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// The exit code the checks' verdicts give: 2 with a FAIL, 1 with a WARN, else 0.
int exit_code_from(const json& checks) {
  int code = 0;
  for (const auto& c : checks) {
    if (c.at("verdict") == "FAIL") code = 2;
    if (c.at("verdict") == "WARN" && code == 0) code = 1;
  }
  return code;
}

json validation_of(const std::string& run_json_path) {
  return json::parse(read_file(run_json_path)).at("settings").at("validation");
}

TEST(ValidateTimed, QuickOnTheCpuGivesAVerdictPerCheckWithinAMinute) {
  temp_dir dir;
  const auto run_json = (dir.path() / "run.json").string();
  const auto md = (dir.path() / "validation.md").string();
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_ironbench(
      {"validate", "--level", "quick", "--device", "cpu", "--no-save", "--json", run_json, "--md", md, "-q"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!IRONBENCH_SANITIZED_BUILD) {
    expect_time_not_above("the quick level's time", seconds, 0, 60, "s");
  }
  const auto v = validation_of(run_json);
  EXPECT_EQ(v.at("level"), "quick");
  const auto& checks = v.at("checks");
  std::set<std::string> names;
  for (const auto& c : checks) {
    names.insert(c.at("check").get<std::string>());
    EXPECT_TRUE(std::set<std::string>({"PASS", "WARN", "FAIL", "SKIP"}).contains(c.at("verdict").get<std::string>()));
    EXPECT_FALSE(c.at("rule").get<std::string>().empty()) << c.dump();
  }
  EXPECT_TRUE(names.contains("gemm fp64 1024x1024x1024")) << checks.dump(1);
  EXPECT_TRUE(names.contains("gemm fp32 1024x1024x1024"));
  EXPECT_TRUE(names.contains("stream triad fp64 512 MiB"));
  EXPECT_TRUE(names.contains("doctor: blas_kernels"));
  for (const auto& c : checks) {
    if (c.at("check").get<std::string>().rfind("gemm", 0) != 0) continue;
    EXPECT_TRUE(c.contains("expected")) << "the AVX-512/AVX2 CPU classes have GEMM expectations: " << c.dump();
    // A fraction of the FMA rate measured at the run's start (x86-64 with AVX2 or AVX-512), else
    // of the peak model.
    const auto source = c.value("expected_source", "");
    EXPECT_TRUE(source.find("of the measured FMA rate") != std::string::npos ||
                source.find("of the CPU peak model") != std::string::npos)
        << source;
#if defined(__x86_64__)
    EXPECT_NE(source.find("threads at once"), std::string::npos) << source;
#endif
  }
  EXPECT_EQ(r.exit_code, exit_code_from(checks)) << r.out << r.err;
  EXPECT_EQ(v.at("exit_code"), r.exit_code);
  const auto markdown = read_file(md);
  EXPECT_NE(markdown.find("# Validation: " + v.at("verdict").get<std::string>()), std::string::npos);
  EXPECT_NE(markdown.find("| gemm fp64 1024x1024x1024 |"), std::string::npos) << markdown;
  EXPECT_NE(r.out.find("validation quick: "), std::string::npos) << r.out;

  // The HTML report of the run has the validation's section.
  const auto html = (dir.path() / "report.html").string();
  const auto report = run_ironbench({"report", run_json, "-o", html});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto page = read_file(html);
  EXPECT_NE(page.find("<h2>Validation</h2>"), std::string::npos);
  EXPECT_NE(page.find("gemm fp64 1024x1024x1024"), std::string::npos);
  EXPECT_NE(page.find("doctor: blas_kernels"), std::string::npos);
}

// Sanitized builds skip the next two (each validates the CPU twice; slow under a sanitizer): the
// verdicts and references are unit-tested (Verdicts, RunExpectations) in every build.
#define SKIP_WHEN_SANITIZED() \
  if (IRONBENCH_SANITIZED_BUILD) GTEST_SKIP() << "validated twice: the release build runs it"

TEST(ValidateTimed, OldBlasKernelsFailTheGemmChecksAndTheDoctorCheck) {
  SKIP_WHEN_SANITIZED();
  temp_dir dir;
  const auto run_json = (dir.path() / "run.json").string();
  const auto r = run_program("env", {"OPENBLAS_CORETYPE=Prescott", ironbench_binary(), "validate", "--device", "cpu",
                                     "--no-save", "--json", run_json, "-q", "--format", "slurm"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  // Stdout holds the one line a Slurm health check drains the node with; the table is on stderr.
  EXPECT_EQ(r.out.rfind("ironbench validate quick FAIL: gemm fp64 1024x1024x1024 on cpu ", 0), 0U) << r.out;
  EXPECT_NE(r.out.find("doctor: blas_kernels"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.err.find("validation quick: FAIL"), std::string::npos) << r.err;
  std::map<std::string, std::string> verdicts;
  const auto validation = validation_of(run_json);
  for (const auto& c : validation.at("checks")) {
    verdicts[c.at("check").get<std::string>()] = c.at("verdict").get<std::string>();
  }
  EXPECT_EQ(verdicts["doctor: blas_kernels"], "FAIL");
  EXPECT_EQ(verdicts["gemm fp64 1024x1024x1024"], "FAIL");  // SSE kernels: well under half the AVX-512 peak
}

TEST(ValidateTimed, AFleetJudgesANodeAgainstItsGoldenNodesStoredRuns) {
  SKIP_WHEN_SANITIZED();
  temp_dir dir;
  const auto db = (dir.path() / "fleet.db").string();
  const auto golden = run_ironbench({"validate", "--device", "cpu", "--db", db, "--results-dir",
                                     (dir.path() / "saved").string(), "--tag", "fleet=golden", "-q"});
  // Stored whatever its verdict (on a loaded machine its own checks may WARN or FAIL).
  ASSERT_NE(golden.out.find("stored: run"), std::string::npos) << golden.out << golden.err;
  const auto run_json = (dir.path() / "node.json").string();
  const auto far = run_ironbench({"validate", "--device", "cpu", "--db", db, "--no-save", "--expect",
                                  "tag:fleet=golden", "--expect-factor", "10", "--json", run_json, "-q"});
  // Ten times the golden node: every measured check FAILs (beside busy loops two runs of the
  // stream triad differed by 4.1 times: docs/testing.md, "Tests that judge time").
  EXPECT_EQ(far.exit_code, 2) << far.out << far.err;
  const auto v = validation_of(run_json);
  EXPECT_EQ(v.at("expectations"), "tag:fleet=golden");
  int judged = 0;
  for (const auto& c : v.at("checks")) {
    if (!c.contains("expected")) continue;
    ++judged;
    EXPECT_EQ(c.at("expected_from"), "tag:fleet=golden");
    EXPECT_EQ(c.at("verdict"), "FAIL") << c.dump();
  }
  EXPECT_EQ(judged, 3);  // gemm fp64, gemm fp32, stream triad

  const auto none =
      run_ironbench({"validate", "--device", "cpu", "--db", db, "--no-save", "--expect", "tag:fleet=nowhere"});
  EXPECT_EQ(none.exit_code, 2);
  const auto bad = run_ironbench({"validate", "--level", "fast"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--level takes quick, standard, long or burn-in, not 'fast'"), std::string::npos) << bad.err;
}

// Two ranks on this machine stand for two nodes: rank 0 reports both in one table.
TEST(ValidateTimed, UnderMpirunRankZeroReportsEveryNode) {
  SKIP_WHEN_SANITIZED();
  if (!IRONBENCH_HAS_MPI) GTEST_SKIP() << "this build has no MPI";
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)";
  temp_dir dir;
  const auto run_json = (dir.path() / "run.json").string();
  const auto r = run_program(
      "env", {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_mpi_yield_when_idle=1",
              "OMPI_MCA_btl=self,vader,tcp", "mpirun", "--oversubscribe", "-np", "2", ironbench_binary(), "validate",
              "--device", "cpu", "--no-save", "--json", run_json, "-q", "--format", "k8s-condition"});
  ASSERT_NE(r.exit_code, 137) << r.err;
  const auto settings = json::parse(read_file(run_json)).at("settings");
  // Both ranks on this host: each takes half its memory and threads (no rank fills it alone).
  EXPECT_NE(settings.value("host_share", "").find("2 ranks share this host: local rank 0 validates cpu ("),
            std::string::npos)
      << settings.dump(1);
  const auto nodes = settings.at("validation_nodes");
  ASSERT_EQ(nodes.at("nodes").size(), 2U) << nodes.dump(1);
  EXPECT_NE(nodes.at("nodes").at(1).at("node").get<std::string>().find("(rank 1)"), std::string::npos);
  for (const auto& n : nodes.at("nodes")) EXPECT_GE(n.at("validation").at("checks").size(), 23U);
  EXPECT_EQ(r.exit_code, nodes.at("exit_code").get<int>()) << r.out << r.err;
  EXPECT_NE(r.err.find("Validation of 2 nodes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("slow nodes"), std::string::npos) << r.err;
  // One node condition per node on stdout, each named, each with its node's verdict.
  std::istringstream lines(r.out);
  std::string line;
  std::vector<json> conditions;
  while (std::getline(lines, line)) conditions.push_back(json::parse(line));
  ASSERT_EQ(conditions.size(), 2U) << r.out;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& node = nodes.at("nodes").at(i);
    EXPECT_EQ(conditions[i].at("node"), node.at("node"));
    EXPECT_EQ(conditions[i].at("type"), "IronbenchValidationFailed");
    EXPECT_EQ(conditions[i].at("status"), node.at("validation").at("verdict") == "FAIL" ? "True" : "False");
  }
}

}  // namespace
}  // namespace ironbench::testing
