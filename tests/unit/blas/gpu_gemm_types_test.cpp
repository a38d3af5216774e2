#include "blas/gpu_gemm_types.hpp"

#include <gtest/gtest.h>

namespace ironbench::blas {
namespace {

TEST(GpuGemmTypes, NamesRoundTrip) {
  for (auto t : all_gpu_dtypes()) EXPECT_EQ(gpu_dtype_from_string(to_string(t)), t);
  EXPECT_FALSE(gpu_dtype_from_string("fp64").has_value());
  EXPECT_FALSE(gpu_dtype_from_string("int8").has_value());
}

TEST(GpuGemmTypes, StorageAndMathPerDtype) {
  const auto fp8 = gpu_gemm_types_for(gpu_dtype::fp8, false);
  EXPECT_EQ(fp8.input, element_format::e4m3fn);
  EXPECT_EQ(fp8.output, element_format::bf16);
  EXPECT_TRUE(fp8.scaled);
  EXPECT_EQ(gpu_gemm_types_for(gpu_dtype::fp8, true).input, element_format::e4m3fnuz);
  const auto tf32 = gpu_gemm_types_for(gpu_dtype::tf32, false);
  EXPECT_TRUE(tf32.tf32_math);
  EXPECT_EQ(tf32.input, element_format::fp32);
  EXPECT_GT(tf32.error.input_roundoff, 0);
  EXPECT_FALSE(gpu_gemm_types_for(gpu_dtype::fp32, false).tf32_math);
  EXPECT_EQ(gpu_gemm_types_for(gpu_dtype::fp16, false).output, element_format::fp16);
  EXPECT_EQ(gpu_gemm_types_for(gpu_dtype::bf16, false).output, element_format::bf16);
  EXPECT_EQ(element_bytes(element_format::e4m3fnuz), 1u);
  EXPECT_EQ(element_bytes(element_format::bf16), 2u);
  EXPECT_EQ(element_bytes(element_format::fp32), 4u);
  EXPECT_TRUE(arch_uses_fnuz_fp8("gfx942"));
  EXPECT_FALSE(arch_uses_fnuz_fp8("gfx950"));
  EXPECT_FALSE(arch_uses_fnuz_fp8("sm_90"));
}

TEST(GpuGemmTypes, WhichProviderRunsWhatWhere) {
  EXPECT_EQ(gpu_gemm_unsupported(gemm_provider::blaslt, gpu_dtype::fp8, "sm_90", false), "");
  EXPECT_EQ(gpu_gemm_unsupported(gemm_provider::blaslt, gpu_dtype::bf16, "sm_80", false), "");
  EXPECT_EQ(gpu_gemm_unsupported(gemm_provider::blaslt, gpu_dtype::fp8, "sm_80", false),
            "sm_80 has no fp8 matrix units");
  EXPECT_NE(gpu_gemm_unsupported(gemm_provider::blas, gpu_dtype::fp8, "sm_90", false).find("cuBLAS GemmEx has no fp8"),
            std::string::npos);
  EXPECT_NE(gpu_gemm_unsupported(gemm_provider::blas, gpu_dtype::tf32, "gfx942", true).find("rocBLAS"),
            std::string::npos);
  EXPECT_EQ(gpu_gemm_unsupported(gemm_provider::blaslt, gpu_dtype::tf32, "gfx942", true), "");
  EXPECT_EQ(gpu_gemm_unsupported(gemm_provider::blaslt, gpu_dtype::tf32, "gfx950", true),
            "gfx950 has no tf32 matrix units");
  EXPECT_NE(gpu_gemm_unsupported(gemm_provider::blaslt, gpu_dtype::fp8, "sm_999", false).find("unknown architecture"),
            std::string::npos);
  EXPECT_EQ(gpu_gemm_unsupported(gemm_provider::blas, gpu_dtype::bf16, "sm_999", false), "");
}

}  // namespace
}  // namespace ironbench::blas
