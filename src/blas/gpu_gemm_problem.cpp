#include "blas/gpu_gemm_problem.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/error.hpp"

namespace ironbench::blas {

std::string misaligned_operands(const gpu_gemm_problem& problem) {
  struct operand {
    const char* name;
    const void* pointer;
  };
  std::vector<operand> operands{{"A", problem.a}, {"B", problem.b}, {"C", problem.c}};
  if (problem.types.scaled) {
    operands.push_back({"scale_a", problem.scale_a});
    operands.push_back({"scale_b", problem.scale_b});
  }
  std::string out;
  for (const auto& o : operands) {
    const auto address = reinterpret_cast<std::uintptr_t>(o.pointer);
    if (o.pointer == nullptr || address % blas_pointer_alignment == 0) continue;
    out += fmt::format("{}{} ({:#x})", out.empty() ? "" : ", ", o.name, address);
  }
  return out;
}

void require_aligned_operands(const gpu_gemm_problem& problem) {
  if (const auto misaligned = misaligned_operands(problem); !misaligned.empty()) {
    throw error(fmt::format("GEMM operands not aligned to {} bytes, as the BLAS libraries require: {}",
                            blas_pointer_alignment, misaligned));
  }
}

}  // namespace ironbench::blas
