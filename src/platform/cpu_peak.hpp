// Theoretical peak arithmetic throughput of the CPU per data type, "where known": usable
// physical cores x nominal clock x FLOP per cycle per core (vector FMA units x lanes x 2).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "platform/cpu_info.hpp"

namespace ironbench::platform {

struct host_fingerprint;

/// Data types with a peak estimate.
inline constexpr std::array<std::string_view, 3> cpu_peak_dtypes{"fp64", "fp32", "bf16"};

/// fp64 FLOP per cycle per core of a CPU and the micro-architecture reasoning behind it.
struct flops_per_cycle {
  std::optional<double> fp64;  ///< nullopt when the CPU has no table entry
  std::string description;     ///< "Zen 5, AVX-512 2x512-bit FMA"
};

/// The table (fp64, per core):
///   AMD family 0x1a (Zen 5) with avx512f ........ 32
///   AMD family 0x19 (Zen 3 / Zen 4) ............. 16  (Zen 4 runs AVX-512 on 256-bit units)
///   AMD family 0x17 model >= 0x30 (Zen 2) ....... 16
///   AMD family 0x17 model < 0x30, Hygon 0x18 ...  8  (Zen 1 / Zen+: 2x128-bit FMA)
///   Intel with avx512f ........................... 32  (assumes two 512-bit FMA units;
///                                                       one-unit parts reach half)
///   other x86 with avx2 + fma ................... 16
///   x86 with avx, no fma .........................  8
///   x86 with sse2 ................................  4
///   anything else (e.g. aarch64) ................. unknown
[[nodiscard]] flops_per_cycle fp64_flops_per_cycle(const cpu_info& cpu);

/// A peak estimate and the assumption behind it, e.g. "2 cores x 2596 MHz (cpuinfo) x 32
/// FLOP/cycle (Zen 5, AVX-512 2x512-bit FMA)"; when unknown, the note says why.
struct peak_estimate {
  std::optional<double> flops_per_second;  ///< FLOP/s
  std::string note;
};

/// Peak for `dtype` ("fp64", "fp32", "bf16") with `cores` physical cores. fp32 = 2 x fp64;
/// bf16 = 2 x fp32 with avx512_bf16 and no AMX, unknown otherwise (AMX is not modelled).
/// An unknown dtype gives an unknown estimate.
[[nodiscard]] peak_estimate cpu_peak_flops(const cpu_info& cpu, std::optional<int> cores, std::string_view dtype);

/// Peak of the host for `dtype`, over the physical cores this process may use (see
/// usable_physical_cores in host_fingerprint.hpp).
[[nodiscard]] peak_estimate cpu_peak_flops(const host_fingerprint& host, std::string_view dtype);

}  // namespace ironbench::platform
