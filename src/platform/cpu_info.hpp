// The host CPU: identity, topology, caches, instruction-set features and clock frequencies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpu_cache.hpp"
#include "platform/cpu_topology.hpp"
#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// Instruction-set features that matter for peak arithmetic throughput, from the cpuinfo
/// "flags" (x86) or "Features" (aarch64) line.
struct isa_flags {
  bool sse2 = false;
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512_bf16 = false;
  bool amx_bf16 = false;
  bool amx_tile = false;
  bool neon = false;  ///< aarch64 "asimd" (or 32-bit ARM "neon")
  bool sve = false;
  bool sve2 = false;
  bool bf16 = false;  ///< aarch64 "bf16" (BFloat16 instructions)

  /// Sets every boolean whose flag name appears in `flags`.
  [[nodiscard]] static isa_flags from_flags(const std::vector<std::string>& flags);
};

/// A clock frequency and where it came from.
struct nominal_frequency {
  std::optional<double> mhz;  ///< MHz; nullopt when no source gave one
  std::string source;         ///< "cpufreq max", "cpufreq base", "model name", "cpuinfo" or ""
};

/// Clock frequencies of the CPU, MHz. Each is nullopt when its source is absent (VMs usually
/// have no cpufreq directory, so cpuinfo_mhz is often the only one).
struct cpu_frequency {
  std::optional<double> max_mhz;      ///< cpufreq cpuinfo_max_freq (highest boost clock)
  std::optional<double> base_mhz;     ///< cpufreq base_frequency, else "@ 2.50GHz" in the name
  std::string base_source;            ///< "cpufreq base", "model name" or ""
  std::optional<double> cpuinfo_mhz;  ///< "cpu MHz" of the first processor in /proc/cpuinfo
  /// All-core clock measured on this host (device/cpu/cpu_clock.hpp); set by live detection
  /// only, never read from files. In VMs, cpuinfo_mhz is the nominal (TSC) clock while the
  /// cores run faster, so a peak built on it would be exceeded.
  std::optional<double> measured_mhz;
  std::string frequency_source;  ///< source of nominal(): see nominal_frequency::source

  /// The clock a peak-FLOPS estimate uses: max_mhz, else measured_mhz, else base_mhz, else
  /// cpuinfo_mhz.
  [[nodiscard]] nominal_frequency nominal() const;
};

/// Everything known about the host CPU. Strings are empty and optionals nullopt when unknown.
struct cpu_info {
  std::string vendor;              ///< "GenuineIntel", "AuthenticAMD"; aarch64: implementer name
  std::string model_name;          ///< "AMD EPYC 9554 64-Core Processor"; aarch64: from CPU part
  std::optional<int> family;       ///< x86 family (26 = 0x1a for Zen 5)
  std::optional<int> model;        ///< x86 model
  std::optional<int> stepping;     ///< x86 stepping
  cpu_topology topology;           ///< online CPUs, sockets, cores, threads, NUMA nodes
  std::vector<cache_info> caches;  ///< per level and type
  std::optional<std::uint64_t> last_level_cache_bytes_total;  ///< see cpu_cache.hpp, bytes
  isa_flags isa;                                              ///< feature booleans
  std::vector<std::string> flags;                             ///< the full flag list (kept out of JSON)
  cpu_frequency frequency;                                    ///< clocks, MHz

  /// True when `flag` is in the full flag list.
  [[nodiscard]] bool has_flag(std::string_view flag) const;
};

/// The frequency in a model name such as "Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz", MHz.
[[nodiscard]] std::optional<double> parse_model_name_mhz(std::string_view model_name);

/// Detects the CPU from proc/cpuinfo and sys/devices/system/{cpu,node} below the reader's
/// root. Never throws for missing or malformed files.
[[nodiscard]] cpu_info detect_cpu(const sysfs_reader& reader);

}  // namespace ironbench::platform
