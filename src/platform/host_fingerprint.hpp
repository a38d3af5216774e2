// The host fingerprint: a description of the machine a benchmark ran on, recorded with every
// result so that runs on bare metal, VMs and containers can be told apart and compared.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/cgroup.hpp"
#include "platform/container.hpp"
#include "platform/cpu_info.hpp"
#include "platform/os_info.hpp"
#include "platform/software_info.hpp"
#include "platform/virtualization.hpp"

namespace ironbench::platform {

/// Where detection reads from. Tests point `root` at a fake tree and fake the rest.
struct probe_sources {
  std::filesystem::path root = "/";  ///< the tree holding proc/, sys/, etc/, run/
  cpuid_probe cpuid;                 ///< CPUID facts (default: unavailable)
  env_lookup getenv;                 ///< environment lookup (default empty: no variables)
};

/// The variable that overrides the host name as the node's name in every result (and for
/// grouping ranks into nodes): set per rank, e.g. in mpirun's MPMD form.
inline constexpr std::string_view node_name_variable = "IRONBENCH_NODE_NAME";

/// The real machine: root "/", read_cpuid() and ::getenv.
[[nodiscard]] probe_sources live_probe_sources();

/// Everything known about the host. Unknown values are empty strings or nullopt.
struct host_fingerprint {
  std::string hostname;  ///< proc/sys/kernel/hostname, else gethostname() on a live root
  cpu_info cpu;
  memory_info memory;
  os_info os;
  virtualization_info virtualization;
  container_info container;
  cgroup_limits cgroup;
  /// The one-word answer runs are compared on: "bare_metal", "vm", "container",
  /// "container_in_vm", or "unknown" when nothing could be read. A string, so that other
  /// modules can refine it (e.g. a GPU partition kind).
  std::string environment_kind;
  software_info software;

  /// Memory this process may use: min(MemTotal, cgroup memory limit), bytes. Used to refuse
  /// impossible sizes. nullopt when neither is known.
  [[nodiscard]] std::optional<std::uint64_t> usable_memory_bytes() const;

  /// CPUs this process may run on: the cgroup cpuset count, else the online logical CPUs.
  [[nodiscard]] std::optional<int> usable_cpus() const;
};

/// Classifies the environment from the virtualization and container verdicts.
[[nodiscard]] std::string classify_environment(const virtualization_info& virtualization,
                                               const container_info& container);

/// Physical cores this process may use: distinct cores among the cgroup cpuset's CPUs (all
/// online cores without a cpuset); nullopt when core ids are unknown.
[[nodiscard]] std::optional<int> usable_physical_cores(const host_fingerprint& host);

/// Detects everything. Never throws for missing or unreadable files.
[[nodiscard]] host_fingerprint detect_host(const probe_sources& sources);

/// The fingerprint as JSON: nested objects hostname, cpu{..., caches[], isa{}, frequency{},
/// peak{}}, memory{}, os{}, virtualization{}, container{}, cgroup{}, environment_kind,
/// software{}. Sizes are integers in bytes, unknown values are null; the full cpu flag list
/// is left out.
[[nodiscard]] nlohmann::json to_json(const host_fingerprint& host);

/// Human-readable (label, text) lines for `ironbench sysinfo`, e.g.
/// {"Caches", "L1d 48 KiB x2, L1i 32 KiB x2, L2 1 MiB x2, L3 32 MiB x1"}.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> summary_lines(const host_fingerprint& host);

}  // namespace ironbench::platform
