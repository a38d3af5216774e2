// The arithmetic rate the CPU actually sustains, measured: every usable CPU at once runs
// independent fp64 fused multiply-adds in its widest vector registers (AVX-512, else AVX2 with
// FMA), as an empirical roofline tool measures its compute ceiling. It captures what a peak
// model cannot know: the clock under heavy vector load (lower than the scalar clock on many
// Intel parts), one or two FMA units per core, and vCPUs of a VM that are hyperthreads sharing
// one core's units.
#pragma once

#include <optional>
#include <string>

namespace ironbench::device {

/// One measurement of the all-CPU fp64 FMA rate.
struct fma_rate {
  double fp64_flops_per_second = 0;  ///< all threads together (fp32 is twice this)
  int threads = 0;
  std::string instructions;  ///< "AVX-512" or "AVX2+FMA"
  /// "16 threads at once x 34.1 GFLOP/s (AVX-512 FMA, fp64)"
  [[nodiscard]] std::string describe() const;
};

/// Every OpenMP thread runs FMAs at once; each thread's rate is its fastest of several slices
/// of about `slice_s` after a warm-up, and the total is the median thread's rate times the
/// threads (a thread the OS descheduled for a moment does not lower it). Takes about
/// 8 x `slice_s`. nullopt where the CPU has neither AVX-512 nor AVX2 with FMA (other
/// architectures), or no rate came out.
[[nodiscard]] std::optional<fma_rate> measure_cpu_fma_rate(double slice_s = 0.01);

}  // namespace ironbench::device
