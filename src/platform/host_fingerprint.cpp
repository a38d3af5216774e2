#include "platform/host_fingerprint.hpp"

#include <unistd.h>
#include <algorithm>
#include <cstdlib>

namespace ironbench::platform {

probe_sources live_probe_sources() {
  probe_sources sources;
  sources.root = "/";
  sources.cpuid = read_cpuid();
  sources.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  return sources;
}

std::optional<std::uint64_t> host_fingerprint::usable_memory_bytes() const {
  const auto& total = memory.total_bytes;
  const auto& limit = cgroup.memory_limit_bytes;
  if (total && limit) return std::min(*total, *limit);
  return total ? total : limit;
}

std::optional<int> host_fingerprint::usable_cpus() const {
  return cgroup.cpuset_cpus ? cgroup.cpuset_cpus : cpu.topology.logical_cpus;
}

std::string classify_environment(const virtualization_info& virtualization, const container_info& container) {
  if (container.in_container) {
    return virtualization.is_virtual_machine ? "container_in_vm" : "container";
  }
  return virtualization.is_virtual_machine ? "vm" : "bare_metal";
}

std::optional<int> usable_physical_cores(const host_fingerprint& host) {
  const auto allowed = host.cgroup.cpuset_list();
  if (allowed.empty()) return host.cpu.topology.physical_cores;
  return host.cpu.topology.physical_cores_in(allowed);
}

host_fingerprint detect_host(const probe_sources& sources) {
  const sysfs_reader reader(sources.root);
  host_fingerprint host;
  // IRONBENCH_NODE_NAME names the node where the host name does not (a pod's or a container's
  // name, or several ranks of one machine standing for several nodes in a test).
  if (sources.getenv) host.hostname = sources.getenv(std::string(node_name_variable)).value_or("");
  if (host.hostname.empty()) host.hostname = reader.read_text("proc/sys/kernel/hostname").value_or("");
  if (host.hostname.empty() && reader.is_live()) {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) host.hostname = name;
  }
  host.cpu = detect_cpu(reader);
  host.memory = detect_memory(reader);
  host.os = detect_os(reader);
  host.virtualization = detect_virtualization(reader, sources.cpuid, host.cpu.flags);
  host.container = detect_container(reader, sources.getenv);
  host.cgroup = detect_cgroup(reader);
  const bool nothing_read = !host.cpu.topology.logical_cpus && !host.memory.total_bytes && !sources.cpuid.available &&
                            host.virtualization.evidence.empty() && !host.container.in_container;
  host.environment_kind = nothing_read ? "unknown" : classify_environment(host.virtualization, host.container);
  host.software = detect_software(reader.is_live());
  return host;
}

}  // namespace ironbench::platform
