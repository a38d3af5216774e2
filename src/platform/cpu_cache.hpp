// CPU caches as the kernel describes them in
// /sys/devices/system/cpu/cpu*/cache/index*/{level,type,size,shared_cpu_list}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// One cache level/type of the machine, e.g. "L3 Unified, 32 MiB per instance, 2 instances".
struct cache_info {
  int level = 0;                  ///< 1, 2, 3 ...
  std::string type;               ///< "Data", "Instruction" or "Unified"
  std::uint64_t size_bytes = 0;   ///< capacity of one instance, bytes
  int instances = 0;              ///< distinct shared_cpu_list values among the scanned CPUs
  std::uint64_t total_bytes = 0;  ///< size_bytes x instances

  /// Short name: "L1d", "L1i", "L2", "L3".
  [[nodiscard]] std::string label() const;
};

/// Parses a sysfs cache size: "48K" -> 49152, "32768K", "1M", "2G", "512" (bytes); a "B" or
/// "iB" suffix and spaces ("48 KB") are accepted. Units are binary (K = 1024). nullopt when
/// malformed.
[[nodiscard]] std::optional<std::uint64_t> parse_cache_size(std::string_view text);

/// Reads the cache descriptions of the given CPUs (all cpuN directories when `cpus` is
/// empty) and groups them by (level, type), sorted by level then Data/Instruction/Unified.
/// Entries missing level, type or size are skipped.
[[nodiscard]] std::vector<cache_info> detect_caches(const sysfs_reader& reader, const std::vector<int>& cpus);

/// Sum of total_bytes of the highest-level Data or Unified cache: the capacity a memory
/// benchmark must exceed (STREAM arrays are sized at least 4x this). nullopt without caches.
[[nodiscard]] std::optional<std::uint64_t> last_level_cache_bytes_total(const std::vector<cache_info>& caches);

}  // namespace ironbench::platform
