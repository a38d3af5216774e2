// ironbench doctor and the findings attached to a run, with this machine's real OpenBLAS made to
// choose its kernels (OPENBLAS_CORETYPE): the fallback to older kernels is named, the right
// kernels are not.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

// The OpenBLAS kernel family that fits this CPU's widest vector instructions; empty when none
// of the x86 families does (another architecture).
std::string right_family() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    if (flags.contains("avx512f")) return "SkylakeX";
    if (flags.contains("avx2") && flags.contains("fma")) return "Haswell";
    if (flags.contains("avx")) return "Sandybridge";
    return "";
  }
  return "";
}

process_result with_coretype(const std::string& family, const std::vector<std::string>& args) {
  std::vector<std::string> command = {"OPENBLAS_CORETYPE=" + family, ironbench_binary()};
  command.insert(command.end(), args.begin(), args.end());
  return run_program("env", command);
}

std::vector<std::string> checks_named(const json& findings) {
  std::vector<std::string> ids;
  for (const auto& f : findings) ids.push_back(f.at("check").get<std::string>());
  return ids;
}

bool has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(Doctor, TheOpenBlasFallbackIsNamedAndTheRightKernelsAreNot) {
  const auto right = right_family();
  if (right.empty() || right == "Sandybridge") GTEST_SKIP() << "this CPU has no AVX2: no older family to fall back to";
  const auto fallback = with_coretype("Prescott", {"doctor", "--json", "--window", "0"});
  ASSERT_EQ(fallback.exit_code, 0) << fallback.err;
  const auto found = json::parse(fallback.out);
  EXPECT_EQ(found.at("facts").at("blas").at("core_name"), "Prescott");
  ASSERT_TRUE(has(checks_named(found.at("findings")), "blas_kernels")) << fallback.out;
  const auto& blas = found.at("findings").at(0);
  EXPECT_EQ(blas.at("check"), "blas_kernels");
  EXPECT_EQ(blas.at("severity"), "critical");
  EXPECT_NE(blas.at("fix").get<std::string>().find("OPENBLAS_CORETYPE=" + right), std::string::npos);

  const auto fitting = with_coretype(right, {"doctor", "--json", "--window", "0"});
  ASSERT_EQ(fitting.exit_code, 0) << fitting.err;
  const auto clean = json::parse(fitting.out);
  EXPECT_EQ(clean.at("facts").at("blas").at("core_name"), right);
  EXPECT_FALSE(has(checks_named(clean.at("findings")), "blas_kernels")) << fitting.out;

  const auto text = with_coretype("Prescott", {"doctor", "--window", "0.2"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("CRITICAL blas_kernels: OpenBLAS runs its Prescott kernels"), std::string::npos) << text.out;
}

TEST(Doctor, ARunCarriesItsFindingsInItsJsonAndPrintsThemAfterTheTable) {
  const auto right = right_family();
  if (right.empty() || right == "Sandybridge") GTEST_SKIP() << "this CPU has no AVX2: no older family to fall back to";
  temp_dir dir;
  const auto json_path = (dir.path() / "run.json").string();
  const std::vector<std::string> args = {"run",        "gemm",       "--device", "cpu",     "--axis",     "M=64",
                                         "--axis",     "dtype=fp64", "--warmup", "0",       "--min-time", "0",
                                         "--max-time", "0.1s",       "--json",   json_path, "--no-save"};
  const auto slow = with_coretype("Prescott", args);
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  const auto run = json::parse(read_file(json_path));
  EXPECT_TRUE(has(checks_named(run.at("findings")), "blas_kernels")) << run.at("findings").dump();
  EXPECT_NE(slow.out.find("blas_kernels"), std::string::npos) << slow.out;

  const auto fast = with_coretype(right, args);
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  EXPECT_FALSE(has(checks_named(json::parse(read_file(json_path)).at("findings")), "blas_kernels"));
}

}  // namespace
}  // namespace ironbench::testing
