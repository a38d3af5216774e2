// Parsing of /proc/cpuinfo, x86 style ("vendor_id", "model name", "flags") and aarch64 style
// ("CPU implementer", "CPU part", "Features", no model name).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::platform {

/// One "processor : N" block's topology fields (x86 only has physical id / core id).
struct cpuinfo_processor {
  int processor = 0;               ///< logical CPU number
  std::optional<int> physical_id;  ///< socket ("physical id"), x86
  std::optional<int> core_id;      ///< core within the socket ("core id"), x86
};

/// What /proc/cpuinfo says, taken from the first processor block unless noted.
struct proc_cpuinfo {
  std::string vendor;                         ///< "vendor_id" (x86), or the ARM implementer's name
  std::string model_name;                     ///< "model name"; on aarch64 built from the CPU part
  std::optional<int> family;                  ///< "cpu family" (x86)
  std::optional<int> model;                   ///< "model" (x86)
  std::optional<int> stepping;                ///< "stepping" (x86)
  std::optional<int> arm_implementer;         ///< "CPU implementer" (aarch64), e.g. 0x41
  std::optional<int> arm_part;                ///< "CPU part" (aarch64), e.g. 0xd40
  std::optional<double> cpu_mhz;              ///< "cpu MHz": current (in VMs: nominal) clock, MHz
  std::vector<std::string> flags;             ///< "flags" (x86) or "Features" (aarch64) words
  std::vector<cpuinfo_processor> processors;  ///< every processor block, in file order
};

/// Parses the text of /proc/cpuinfo. Unknown or malformed lines are ignored; an empty text
/// gives an empty result.
[[nodiscard]] proc_cpuinfo parse_proc_cpuinfo(std::string_view text);

/// Name of an ARM implementer code (0x41 -> "ARM", 0xc0 -> "Ampere"); empty when unknown.
[[nodiscard]] std::string arm_implementer_name(int implementer);

/// Name of an ARM core from implementer and part (0x41, 0xd40 -> "Neoverse-V1"); empty when
/// not in the table.
[[nodiscard]] std::string arm_part_name(int implementer, int part);

}  // namespace ironbench::platform
