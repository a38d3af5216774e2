#include "blas/gpu_gemm_problem.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.hpp"

namespace ironbench::blas {
namespace {

// Device addresses as cudaMalloc returns them (256-byte aligned); nothing is dereferenced.
const void* address(std::uintptr_t value) { return reinterpret_cast<const void*>(value); }
const float* float_address(std::uintptr_t value) { return reinterpret_cast<const float*>(value); }

gpu_gemm_problem fp8_problem() {
  gpu_gemm_problem p;
  p.type = gpu_dtype::fp8;
  p.types = gpu_gemm_types_for(gpu_dtype::fp8, false);
  p.m = p.n = p.k = 1024;
  p.a = address(0x7f0000000000);
  p.b = address(0x7f0000100000);
  p.c = const_cast<void*>(address(0x7f0000200000));
  p.scale_a = float_address(0x7f0000300000);
  p.scale_b = float_address(0x7f0000300010);
  return p;
}

TEST(GpuGemmProblem, AlignedOperandsPass) {
  const auto p = fp8_problem();
  EXPECT_EQ(misaligned_operands(p), "");
  EXPECT_NO_THROW(require_aligned_operands(p));
}

// The fault seen on an H200: the second scale was the second float of one allocation, and
// cuBLASLt's fp8 kernels all declined the matmul.
TEST(GpuGemmProblem, AScaleFourBytesIntoAnAllocationIsNamed) {
  auto p = fp8_problem();
  p.scale_b = float_address(0x7f0000300004);
  EXPECT_EQ(misaligned_operands(p), "scale_b (0x7f0000300004)");
  try {
    require_aligned_operands(p);
    FAIL() << "a misaligned scale was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("not aligned to 16 bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scale_b"), std::string::npos) << e.what();
  }
}

TEST(GpuGemmProblem, EveryMisalignedMatrixIsNamed) {
  auto p = fp8_problem();
  p.a = address(0x7f0000000002);
  p.c = const_cast<void*>(address(0x7f0000200008));
  EXPECT_EQ(misaligned_operands(p), "A (0x7f0000000002), C (0x7f0000200008)");
}

TEST(GpuGemmProblem, ScalesOfAnUnscaledProblemAndNullPointersAreNotJudged) {
  auto p = fp8_problem();
  p.type = gpu_dtype::bf16;
  p.types = gpu_gemm_types_for(gpu_dtype::bf16, false);
  p.scale_a = float_address(0x7f0000300004);
  EXPECT_EQ(misaligned_operands(p), "");
  p.b = nullptr;
  EXPECT_EQ(misaligned_operands(p), "");
}

// The layout the GEMM benchmark gives its two fp8 scales in one allocation.
TEST(GpuGemmProblem, AlignedSlotsStartOnSixteenByteBoundaries) {
  for (std::size_t element : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(aligned_slot(i, element) * element % blas_pointer_alignment, 0u) << element << " " << i;
      if (i > 0) {
        EXPECT_GE((aligned_slot(i, element) - aligned_slot(i - 1, element)) * element, element);
      }
    }
  }
  EXPECT_EQ(aligned_slot(1, sizeof(float)), 4u);
  auto p = fp8_problem();
  const std::uintptr_t allocation = 0x7f0000300000;
  p.scale_a = float_address(allocation) + aligned_slot(0, sizeof(float));
  p.scale_b = float_address(allocation) + aligned_slot(1, sizeof(float));
  EXPECT_EQ(misaligned_operands(p), "");
}

}  // namespace
}  // namespace ironbench::blas
