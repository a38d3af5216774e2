#include "device/cpu/cpu_clock.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace ironbench::device {
namespace {

constexpr int additions_per_block = 1000;

// One block of dependent register-register additions: each needs the previous result, so it
// takes one cycle (no renamer folds a register operand, as some fold small immediates).
inline void dependent_additions(std::uint64_t& x, std::uint64_t step) {
#if defined(__x86_64__)
  asm volatile(".rept 1000\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(step));
#elif defined(__aarch64__)
  asm volatile(".rept 1000\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(step));
#endif
}

constexpr bool chain_known() {
#if defined(__x86_64__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

// Additions per second over one slice of about `slice_s` seconds.
double slice_rate(double slice_s, std::uint64_t& x) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::uint64_t blocks = 0;
  double elapsed = 0;
  do {
    for (int i = 0; i < 16; ++i) dependent_additions(x, blocks | 1);
    blocks += 16;
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < slice_s);
  return static_cast<double>(blocks) * additions_per_block / elapsed;
}

}  // namespace

std::optional<double> measure_cpu_clock_mhz(double slice_s) {
  if (!chain_known()) return std::nullopt;
  std::vector<double> per_thread(static_cast<std::size_t>(omp_get_max_threads()), 0.0);
#pragma omp parallel
  {
    std::uint64_t x = 0;
    slice_rate(slice_s, x);  // warm-up: let the clock ramp
    double best = 0;
    for (int s = 0; s < 5; ++s) best = std::max(best, slice_rate(slice_s, x));
    per_thread[static_cast<std::size_t>(omp_get_thread_num())] = best;
  }
  std::sort(per_thread.begin(), per_thread.end());
  const double median = per_thread[per_thread.size() / 2];
  if (!(median > 0)) return std::nullopt;
  return median / 1e6;
}

}  // namespace ironbench::device
