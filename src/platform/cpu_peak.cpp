#include "platform/cpu_peak.hpp"

#include <fmt/format.h>

#include "platform/host_fingerprint.hpp"

namespace ironbench::platform {

flops_per_cycle fp64_flops_per_cycle(const cpu_info& cpu) {
  const auto& isa = cpu.isa;
  const int family = cpu.family.value_or(-1);
  const int model = cpu.model.value_or(-1);
  if (cpu.vendor == "AuthenticAMD") {
    if (family == 0x1a && isa.avx512f) return {32, "Zen 5, AVX-512 2x512-bit FMA"};
    if (family == 0x19) return {16, "Zen 3/Zen 4, 2x256-bit FMA"};
    if (family == 0x17 && model >= 0x30) return {16, "Zen 2, 2x256-bit FMA"};
    if (family == 0x17) return {8, "Zen 1, 2x128-bit FMA"};
  }
  if (cpu.vendor == "HygonGenuine" && family == 0x18) return {8, "Hygon Dhyana (Zen 1), 2x128-bit FMA"};
  if (cpu.vendor == "GenuineIntel" && isa.avx512f) {
    return {32, "Intel AVX-512, assumes 2 FMA units"};
  }
  if (isa.avx2 && isa.fma) return {16, "AVX2 2x256-bit FMA"};
  if (isa.avx) return {8, "AVX 256-bit add + mul, no FMA"};
  if (isa.sse2) return {4, "SSE2 128-bit add + mul"};
  const std::string name = cpu.model_name.empty() ? cpu.vendor : cpu.model_name;
  return {std::nullopt, fmt::format("no FLOP/cycle table entry for {}", name.empty() ? std::string("this CPU") : name)};
}

peak_estimate cpu_peak_flops(const cpu_info& cpu, std::optional<int> cores, std::string_view dtype) {
  if (dtype != "fp64" && dtype != "fp32" && dtype != "bf16") {
    return {std::nullopt, fmt::format("no CPU peak model for dtype {}", dtype)};
  }
  const auto per_cycle = fp64_flops_per_cycle(cpu);
  if (!per_cycle.fp64) return {std::nullopt, per_cycle.description};

  double factor = 1;
  std::string how = per_cycle.description;
  if (dtype == "fp32") {
    factor = 2;
    how = "fp32 = 2x fp64; " + how;
  } else if (dtype == "bf16") {
    if (cpu.isa.amx_bf16) return {std::nullopt, "AMX bf16 peak not modelled"};
    if (!cpu.isa.avx512_bf16) return {std::nullopt, "no avx512_bf16: no native bf16 arithmetic"};
    factor = 4;
    how = "bf16 = 2x fp32 with AVX512_BF16; " + how;
  }

  const auto freq = cpu.frequency.nominal();
  if (!freq.mhz) return {std::nullopt, "CPU frequency unknown"};
  if (!cores || *cores <= 0) return {std::nullopt, "number of physical cores unknown"};
  const double per_core_cycle = *per_cycle.fp64 * factor;
  return {*cores * *freq.mhz * 1e6 * per_core_cycle,
          fmt::format("{} core{} x {:.0f} MHz ({}) x {:g} FLOP/cycle ({})", *cores, *cores == 1 ? "" : "s", *freq.mhz,
                      freq.source, per_core_cycle, how)};
}

peak_estimate cpu_peak_flops(const host_fingerprint& host, std::string_view dtype) {
  return cpu_peak_flops(host.cpu, usable_physical_cores(host), dtype);
}

}  // namespace ironbench::platform
