// CPU topology: which logical CPUs are online, how they group into cores, sockets and NUMA
// nodes. Read from /sys/devices/system/{cpu,node}, falling back to /proc/cpuinfo.
#pragma once

#include <optional>
#include <vector>

#include "platform/proc_cpuinfo.hpp"
#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// Where one online logical CPU sits.
struct logical_cpu {
  int cpu = 0;                 ///< logical CPU number, as in CPU lists
  std::optional<int> package;  ///< physical package (socket) id
  std::optional<int> core;     ///< core id within the package
};

/// Topology of the online CPUs. Every count is unknown (nullopt) when nothing describes it.
struct cpu_topology {
  std::vector<int> online;              ///< online CPU numbers, sorted
  std::vector<logical_cpu> cpus;        ///< one entry per online CPU
  std::optional<int> logical_cpus;      ///< number of online logical CPUs
  std::optional<int> sockets;           ///< distinct packages (1 when CPUs exist but no ids)
  std::optional<int> physical_cores;    ///< distinct (package, core) pairs
  std::optional<int> threads_per_core;  ///< most logical CPUs sharing one core
  std::optional<int> numa_nodes;        ///< nodeN directories (1 when CPUs exist but none)

  /// Distinct (package, core) pairs among the CPUs in `allowed` (e.g. a cgroup cpuset);
  /// nullopt when core ids are unknown or no allowed CPU is online.
  [[nodiscard]] std::optional<int> physical_cores_in(const std::vector<int>& allowed) const;
};

/// Detects the topology. Online CPUs come from sys/devices/system/cpu/online, else the
/// processors of /proc/cpuinfo, else the cpuN directories; package and core ids from
/// cpuN/topology/{physical_package_id,core_id}, else cpuinfo's "physical id"/"core id".
[[nodiscard]] cpu_topology detect_topology(const sysfs_reader& reader, const proc_cpuinfo& cpuinfo);

/// The cpuN directory numbers under sys/devices/system/cpu, sorted.
[[nodiscard]] std::vector<int> list_cpu_directories(const sysfs_reader& reader);

}  // namespace ironbench::platform
