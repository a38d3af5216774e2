#include "blas/openblas_kernels.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ironbench::blas {
namespace {

platform::isa_flags flags(std::initializer_list<const char*> names) {
  std::vector<std::string> list(names.begin(), names.end());
  return platform::isa_flags::from_flags(list);
}

// An Emerald Rapids host of an H200 node (family 6 model 0xcf): AVX-512 with BF16 and AMX.
const auto emerald_rapids = flags({"sse2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile"});

TEST(OpenblasKernels, FamiliesMapToTheirInstructions) {
  EXPECT_EQ(openblas_family_isa("Prescott"), kernel_isa::sse);
  EXPECT_EQ(openblas_family_isa("HASWELL"), kernel_isa::avx2);
  EXPECT_EQ(openblas_family_isa("SkylakeX"), kernel_isa::avx512);
  EXPECT_EQ(openblas_family_isa("Cooperlake"), kernel_isa::avx512);
  EXPECT_EQ(openblas_family_isa("Sandybridge"), kernel_isa::avx);
  EXPECT_FALSE(openblas_family_isa("NEOVERSEV1").has_value());
  EXPECT_FALSE(openblas_family_isa("").has_value());
}

TEST(OpenblasKernels, TheNewestFamilyTheCpuRuns) {
  EXPECT_EQ(openblas_family_for(emerald_rapids), "Cooperlake");
  EXPECT_EQ(openblas_family_for(flags({"sse2", "avx", "avx2", "fma", "avx512f"})), "SkylakeX");
  EXPECT_EQ(openblas_family_for(flags({"sse2", "avx", "avx2", "fma"})), "Haswell");
  EXPECT_EQ(openblas_family_for(flags({"sse2", "avx", "avx2"})), "Sandybridge");  // AVX2 without FMA
  EXPECT_EQ(openblas_family_for(flags({"sse2"})), "Nehalem");
}

// The fault seen on an H200 node: Debian 12's OpenBLAS 0.3.21 ran Prescott on Emerald Rapids.
TEST(OpenblasKernels, PrescottOnAnAvx512CpuIsReplaced) {
  EXPECT_EQ(openblas_family_to_force("Prescott", emerald_rapids), "Cooperlake");
  EXPECT_EQ(openblas_family_to_force("Haswell", emerald_rapids), "Cooperlake");
  EXPECT_EQ(openblas_family_to_force("Prescott", flags({"sse2", "avx", "avx2", "fma"})), "Haswell");
}

TEST(OpenblasKernels, AChoiceThatUsesTheCpusWidestInstructionsStands) {
  EXPECT_FALSE(openblas_family_to_force("SkylakeX", emerald_rapids).has_value());
  EXPECT_FALSE(openblas_family_to_force("Cooperlake", emerald_rapids).has_value());
  EXPECT_FALSE(openblas_family_to_force("Zen", flags({"sse2", "avx", "avx2", "fma"})).has_value());
  EXPECT_FALSE(openblas_family_to_force("Prescott", flags({"sse2"})).has_value());
  // Another architecture's family, or one ironbench does not know: left alone.
  EXPECT_FALSE(openblas_family_to_force("NEOVERSEN1", emerald_rapids).has_value());
  EXPECT_FALSE(openblas_family_to_force("SomethingNew", emerald_rapids).has_value());
}

TEST(OpenblasKernels, TheOverrideIsRecordedOnlyWhenIronbenchMadeIt) {
  ::unsetenv(openblas_chose_variable);
  EXPECT_EQ(openblas_kernel_override(), "");
  ::setenv(openblas_chose_variable, "Prescott", 1);
  const char* before = std::getenv("OPENBLAS_CORETYPE");
  const std::string kept = before != nullptr ? before : "";
  ::setenv("OPENBLAS_CORETYPE", "Cooperlake", 1);
  const auto text = openblas_kernel_override();
  EXPECT_NE(text.find("OpenBLAS chose Prescott for this CPU; ironbench set OPENBLAS_CORETYPE=Cooperlake"),
            std::string::npos)
      << text;
  EXPECT_NE(openblas_description().find(text), std::string::npos);
  ::unsetenv(openblas_chose_variable);
  if (before != nullptr) {
    ::setenv("OPENBLAS_CORETYPE", kept.c_str(), 1);
  } else {
    ::unsetenv("OPENBLAS_CORETYPE");
  }
}

}  // namespace
}  // namespace ironbench::blas
