// alltoallv under a real MPI launcher (MPI_Alltoallv on host memory), three
// oversubscribed ranks: every received element of every rank exact in every
// element type, out of place and in place, with nccl-tests' bandwidths (S =
// each rank's buffer, bus factor (n-1)/n).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"

namespace ironbench::testing {
namespace {

// mpirun's arguments for `ranks` ranks of `ironbench collectives`, with the
// environment a root-run CI container and the asan preset's LeakSanitizer need
// (as collectives_mpi_test.cpp).
std::vector<std::string> alltoallv_mpirun(int ranks) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  if (std::getenv("LSAN_OPTIONS") != nullptr) setenv("LSAN_OPTIONS", IRONBENCH_MPI_LSAN_OPTIONS, 1);
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
  setenv("OMPI_MCA_btl", "self,vader,tcp", 0);
  return {"--oversubscribe", "-np", std::to_string(ranks), IRONBENCH_BINARY, "collectives"};
}

double alltoallv_metric(const json& c, const char* name) {
  for (const auto& m : c.at("metrics")) {
    if (m.at("name") == name) return m.at("value").get<double>();
  }
  ADD_FAILURE() << "no metric " << name << " in " << c.dump();
  return 0;
}

TEST(CollectivesAlltoallvMpi, ThreeRanksEveryElementOfEveryTypeIsExactInBothPlacements) {
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)";
  auto args = alltoallv_mpirun(3);
  for (auto a : {"alltoallv", "-d", "all", "-b", "8", "-e", "256K", "-f", "8", "-n", "3", "-w", "1", "--no-save", "-q",
                 "--json", "-", "--timeout", "120s"}) {
    args.emplace_back(a);
  }
  const auto r = wait_for(start_program("mpirun", args));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  std::set<std::string> types;
  std::map<std::string, int> placements;
  for (const auto& c : doc.at("cases")) {
    const auto& p = c.at("params");
    EXPECT_EQ(p.at("collective"), "alltoallv");
    EXPECT_EQ(p.at("op"), "none");
    EXPECT_EQ(p.at("ranks"), 3);
    EXPECT_EQ(c.at("status"), "valid") << c.dump();
    EXPECT_EQ(alltoallv_metric(c, "wrong"), 0) << c.dump();
    const double algbw = alltoallv_metric(c, "algbw");
    EXPECT_GT(algbw, 0);
    EXPECT_NEAR(alltoallv_metric(c, "busbw"), algbw * 2 / 3, 1e-9 + 1e-6 * algbw) << c.dump();
    types.insert(p.at("dtype").get<std::string>());
    ++placements[p.at("placement").get<std::string>()];
  }
  EXPECT_EQ(types.size(), 6u);
  // 8 B to 256 KiB by x8: six sizes, less those below one element per rank (8 B
  // of fp64).
  EXPECT_GE(placements["out-of-place"], 30);
  EXPECT_EQ(placements["out-of-place"], placements["in-place"]);
  EXPECT_NE(r.err.find("# Out of bounds values : 0 OK"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ironbench::testing
