// The clock the CPU actually runs at, measured: every usable CPU at once executes a chain of
// dependent integer additions (one cycle each on every x86-64 and Arm64 core), so additions
// per second is cycles per second. Used where the OS does not expose the real clock (VMs show
// only the nominal TSC rate in /proc/cpuinfo) to give peak FLOP/s estimates that hold.
#pragma once

#include <optional>

namespace ironbench::device {

/// Median over threads of each thread's fastest slice, in MHz, after a short warm-up;
/// takes about 6 x `slice_s` seconds. nullopt on instruction sets without a known chain.
[[nodiscard]] std::optional<double> measure_cpu_clock_mhz(double slice_s = 0.005);

}  // namespace ironbench::device
