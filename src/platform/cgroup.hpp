// Resource limits the process's control group imposes: the CPUs it may run on (cpuset), a
// CPU-time quota and a memory limit. This is what `docker run --cpuset-cpus --cpus --memory`
// sets, and what pins a bare-metal container to the shape of a VM for a fair comparison.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// One line of /proc/<pid>/cgroup: "hierarchy-id:controller,list:/path".
struct proc_cgroup_entry {
  int hierarchy_id = 0;                  ///< 0 for the cgroup v2 unified hierarchy
  std::vector<std::string> controllers;  ///< empty for v2; "name=systemd" kept as is
  std::string path;                      ///< path below the hierarchy's root, "/" at the root
};

/// Parses the text of /proc/<pid>/cgroup; malformed lines are skipped.
[[nodiscard]] std::vector<proc_cgroup_entry> parse_proc_cgroup(std::string_view text);

/// Limits found. Optionals are nullopt when the limit is absent ("max", -1) or unreadable.
struct cgroup_limits {
  std::optional<int> version;                       ///< 2 when sys/fs/cgroup/cgroup.controllers exists, 1 when
                                                    ///< v1 controller directories exist, else unknown
  std::string path;                                 ///< the process's cgroup (v2), or its cpuset cgroup (v1)
  std::string cpuset;                               ///< allowed CPUs as a list string ("0-31"); "" unknown
  std::optional<int> cpuset_cpus;                   ///< number of CPUs in cpuset
  std::optional<double> cpu_quota_cores;            ///< CPU-time quota in CPUs (quota / period)
  std::optional<std::uint64_t> memory_limit_bytes;  ///< memory limit, bytes

  /// The cpuset as CPU numbers (empty when unknown).
  [[nodiscard]] std::vector<int> cpuset_list() const;
};

/// v1 memory limits at or above this (2^62) mean "unlimited" (the kernel reports
/// 9223372036854771712, LONG_MAX rounded down to a page).
inline constexpr std::uint64_t cgroup_v1_unlimited_threshold = 1ull << 62;

/// Detects the limits of the current process (paths from proc/self/cgroup). Along the path
/// from the process's cgroup up to the mounted root, the smallest memory and CPU limits win;
/// the cpuset is the effective one of the deepest cgroup that has one.
[[nodiscard]] cgroup_limits detect_cgroup(const sysfs_reader& reader);

}  // namespace ironbench::platform
