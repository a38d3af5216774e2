// The GEMM shapes of the published reports: Llama-70B training GEMMs as SemiAnalysis and the
// MI350X report ("AMD MI350X Training Benchmark Results") measure them, (M, N, K) with
// C = A (M x K) * B (K x N).
#pragma once

#include <array>
#include <cstdint>

namespace ironbench::benchmarks {

struct gemm_shape {
  std::int64_t m;
  std::int64_t n;
  std::int64_t k;
  const char* label;
};

inline constexpr std::array<gemm_shape, 7> llama70b_training_shapes{{
    {8192, 8192, 8192, "Standard Square (8K)"},
    {16384, 8192, 7168, "FFN GEMM 1"},
    {16384, 16384, 16384, "Large Square (16K)"},
    {16384, 1024, 8192, "Attention Output"},
    {16384, 3584, 8192, "FFN GEMM 2"},
    {4096, 4096, 4096, "Standard Square (4K)"},
    {16384, 8192, 1280, "Fused QKV Projection"},
}};

/// CPUs run the same shapes with every dimension divided by this, so the default suite
/// finishes in seconds (2 x 2048^3 FLOPs at most).
inline constexpr std::int64_t cpu_shape_divisor = 8;

}  // namespace ironbench::benchmarks
