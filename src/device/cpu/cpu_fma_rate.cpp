#include "device/cpu/cpu_fma_rate.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ironbench::device {
namespace {

using steady = std::chrono::steady_clock;

// Independent accumulators per thread: enough to keep two FMA units with a 4-cycle latency
// busy (8 in flight), few enough to stay in registers (AVX2 has 16).
constexpr int chains = 12;
constexpr int rounds_per_check = 256;

#if defined(__x86_64__)
// FLOP per second of one thread over about `slice_s`. x = x * m + c converges to 1, so the
// values stay normal numbers (no denormal slowdown) however long it runs.
__attribute__((target("avx512f"))) double avx512_slice(double slice_s, double& sink) {
  __m512d acc[chains];
  for (int i = 0; i < chains; ++i) acc[i] = _mm512_set1_pd(1.0 + i * 1e-3);
  const __m512d m = _mm512_set1_pd(0.999999);
  const __m512d c = _mm512_set1_pd(1e-6);
  const auto start = steady::now();
  std::uint64_t rounds = 0;
  double elapsed = 0;
  do {
    for (int r = 0; r < rounds_per_check; ++r) {
#pragma GCC unroll 12
      for (auto& chain : acc) chain = _mm512_fmadd_pd(chain, m, c);
    }
    rounds += rounds_per_check;
    elapsed = std::chrono::duration<double>(steady::now() - start).count();
  } while (elapsed < slice_s);
  __m512d total = acc[0];
  for (int i = 1; i < chains; ++i) total = _mm512_add_pd(total, acc[i]);
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, total);
  for (const double lane : lanes) sink += lane;
  return static_cast<double>(rounds) * chains * 8 * 2 / elapsed;
}

__attribute__((target("avx2,fma"))) double avx2_slice(double slice_s, double& sink) {
  __m256d acc[chains];
  for (int i = 0; i < chains; ++i) acc[i] = _mm256_set1_pd(1.0 + i * 1e-3);
  const __m256d m = _mm256_set1_pd(0.999999);
  const __m256d c = _mm256_set1_pd(1e-6);
  const auto start = steady::now();
  std::uint64_t rounds = 0;
  double elapsed = 0;
  do {
    for (int r = 0; r < rounds_per_check; ++r) {
#pragma GCC unroll 12
      for (auto& chain : acc) chain = _mm256_fmadd_pd(chain, m, c);
    }
    rounds += rounds_per_check;
    elapsed = std::chrono::duration<double>(steady::now() - start).count();
  } while (elapsed < slice_s);
  __m256d total = acc[0];
  for (int i = 1; i < chains; ++i) total = _mm256_add_pd(total, acc[i]);
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, total);
  sink += lanes[0] + lanes[1] + lanes[2] + lanes[3];
  return static_cast<double>(rounds) * chains * 4 * 2 / elapsed;
}
#endif

using slice_function = double (*)(double, double&);

}  // namespace

std::string fma_rate::describe() const {
  return fmt::format("{} threads at once x {:.1f} GFLOP/s ({} FMA, fp64, measured)", threads,
                     fp64_flops_per_second / threads / 1e9, instructions);
}

std::optional<fma_rate> measure_cpu_fma_rate(double slice_s) {
  slice_function slice = nullptr;
  fma_rate out;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    slice = avx512_slice;
    out.instructions = "AVX-512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    slice = avx2_slice;
    out.instructions = "AVX2+FMA";
  }
#endif
  if (slice == nullptr) return std::nullopt;
  std::vector<double> per_thread(static_cast<std::size_t>(omp_get_max_threads()), 0.0);
  double sink = 0;
#pragma omp parallel reduction(+ : sink)
  {
    // Warm-up: the clock settles under a heavy vector load (AVX-512 licence levels).
    slice(2 * slice_s, sink);
    double best = 0;
    for (int s = 0; s < 6; ++s) best = std::max(best, slice(slice_s, sink));
    per_thread[static_cast<std::size_t>(omp_get_thread_num())] = best;
  }
  if (!(sink == sink)) return std::nullopt;  // NaN: cannot happen, but keeps `sink` observed
  std::sort(per_thread.begin(), per_thread.end());
  const double median = per_thread[per_thread.size() / 2];
  if (!(median > 0)) return std::nullopt;
  out.threads = static_cast<int>(per_thread.size());
  out.fp64_flops_per_second = median * out.threads;
  return out;
}

}  // namespace ironbench::device
