// The GEMM provider table: names unique, each kind's defaults, what this build has, and the
// heuristic-only Lt providers.
#include "blas/gemm_providers.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace ironbench::blas {
namespace {

std::vector<std::string> names_for(core::device_kind kind, bool defaults_only) {
  std::vector<std::string> names;
  for (const auto* row : gemm_providers_for(kind)) {
    if (!defaults_only || row->in_default_sweep) names.emplace_back(row->name);
  }
  return names;
}

TEST(GemmProviders, NamesAreUniqueAndFoundByName) {
  std::set<std::string_view> seen;
  for (const auto& row : gemm_providers()) {
    EXPECT_TRUE(seen.insert(row.name).second) << row.name;
    EXPECT_EQ(find_gemm_provider(row.name), &row);
    EXPECT_FALSE(row.library.empty()) << row.name;
    EXPECT_GE(row.candidates, 1u) << row.name;
    // A CPU provider has CPU functions and no GPU runner; a GPU provider the reverse.
    if (row.device == core::device_kind::cpu) {
      EXPECT_NE(row.cpu, nullptr) << row.name;
      EXPECT_EQ(row.make_gpu, nullptr) << row.name;
    } else {
      EXPECT_EQ(row.cpu, nullptr) << row.name;
    }
  }
  EXPECT_EQ(find_gemm_provider("mkl"), nullptr);
  EXPECT_EQ(find_gemm_provider(""), nullptr);
}

TEST(GemmProviders, EachKindsDefaultsAreTheProvidersUsersKnow) {
  EXPECT_EQ(names_for(core::device_kind::cpu, true), (std::vector<std::string>{"openblas"}));
  EXPECT_EQ(names_for(core::device_kind::cuda, true), (std::vector<std::string>{"cublaslt", "cublas"}));
  EXPECT_EQ(names_for(core::device_kind::hip, true), (std::vector<std::string>{"hipblaslt", "rocblas"}));
}

TEST(GemmProviders, HeuristicProvidersTakeTheLtLibrarysFirstChoiceOutsideTheDefaults) {
  for (const char* name : {"cublaslt-heuristic", "hipblaslt-heuristic"}) {
    const auto* row = find_gemm_provider(name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_FALSE(row->in_default_sweep);
    EXPECT_EQ(row->family, gemm_provider::blaslt);
    EXPECT_EQ(row->candidates, 1u);
  }
  EXPECT_EQ(find_gemm_provider("cublaslt-heuristic")->device, core::device_kind::cuda);
  EXPECT_EQ(find_gemm_provider("hipblaslt-heuristic")->device, core::device_kind::hip);
  EXPECT_GT(find_gemm_provider("cublaslt")->candidates, 1u);
  EXPECT_EQ(find_gemm_provider("cublas")->candidates, 1u);
}

TEST(GemmProviders, TheBuildHasOpenBlasAndAtMostOneGpuVendorsProviders) {
  EXPECT_TRUE(find_gemm_provider("openblas")->built());
  const bool cuda = find_gemm_provider("cublaslt")->built();
  const bool hip = find_gemm_provider("hipblaslt")->built();
  EXPECT_FALSE(cuda && hip);
  // A vendor's providers are all built or none.
  for (const auto* row : gemm_providers_for(core::device_kind::cuda)) EXPECT_EQ(row->built(), cuda) << row->name;
  for (const auto* row : gemm_providers_for(core::device_kind::hip)) EXPECT_EQ(row->built(), hip) << row->name;
#if !IRONBENCH_TEST_WITH_GPU
  EXPECT_FALSE(cuda);
  EXPECT_FALSE(hip);
#endif
}

TEST(GemmProviders, OpenBlasRefusesOnlyWhatTheLoadedLibraryLacks) {
  const auto& cpu = *find_gemm_provider("openblas")->cpu;
  EXPECT_EQ(cpu.unsupported(dtype::fp64), "");
  EXPECT_EQ(cpu.unsupported(dtype::fp32), "");
  EXPECT_EQ(cpu.describe().rfind("openblas ", 0), 0u);
  EXPECT_GE(cpu.threads(), 1);
  const double a[] = {1, 2, 3, 4};
  const double b[] = {5, 6, 7, 8};
  double c[4] = {};
  cpu.run(dtype::fp64, 2, 2, 2, a, b, c);
  EXPECT_EQ(c[0], 19);
  EXPECT_EQ(c[1], 22);
  EXPECT_EQ(c[2], 43);
  EXPECT_EQ(c[3], 50);
}

// docs/metrics.md's gemm section names every provider users can type.
TEST(GemmProviders, TheMetricsPageNamesEveryProvider) {
  std::ifstream in(std::string(IRONBENCH_DOCS_DIR) + "/metrics.md");
  ASSERT_TRUE(in) << IRONBENCH_DOCS_DIR;
  std::stringstream text;
  text << in.rdbuf();
  const auto page = text.str();
  for (const auto& row : gemm_providers()) {
    EXPECT_NE(page.find("`" + std::string(row.name) + "`"), std::string::npos) << row.name;
  }
}

}  // namespace
}  // namespace ironbench::blas
