#include "platform/cpu_topology.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "platform/cpu_list.hpp"

namespace ironbench::platform {

namespace {

const std::string cpu_dir = "sys/devices/system/cpu/";

std::optional<int> non_negative(std::optional<std::int64_t> value) {
  if (!value || *value < 0 || *value > max_cpu_number) return std::nullopt;  // -1: unknown
  return static_cast<int>(*value);
}

// "cpu12" -> 12, "node1" with prefix "node" -> 1, anything else -> nullopt.
std::optional<int> numbered(const std::string& name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const std::string_view digits = std::string_view(name).substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return non_negative(parse_int(digits));
}

using core_key = std::pair<int, int>;  // (package, core); unknown package counts as 0

std::map<core_key, int> threads_by_core(const std::vector<logical_cpu>& cpus, const std::vector<int>* allowed) {
  std::map<core_key, int> cores;
  for (const auto& c : cpus) {
    if (!c.core) continue;
    if (allowed && !std::binary_search(allowed->begin(), allowed->end(), c.cpu)) continue;
    ++cores[{c.package.value_or(0), *c.core}];
  }
  return cores;
}

}  // namespace

std::vector<int> list_cpu_directories(const sysfs_reader& reader) {
  std::vector<int> cpus;
  for (const auto& name : reader.list_dir(cpu_dir)) {
    if (const auto n = numbered(name, "cpu")) cpus.push_back(*n);
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

std::optional<int> cpu_topology::physical_cores_in(const std::vector<int>& allowed) const {
  std::vector<int> sorted = allowed;
  std::sort(sorted.begin(), sorted.end());
  const auto cores = threads_by_core(cpus, &sorted);
  if (cores.empty()) return std::nullopt;
  return static_cast<int>(cores.size());
}

cpu_topology detect_topology(const sysfs_reader& reader, const proc_cpuinfo& cpuinfo) {
  cpu_topology topo;
  if (const auto text = reader.read_text(cpu_dir + "online")) topo.online = parse_cpu_list(*text);
  if (topo.online.empty()) {
    for (const auto& p : cpuinfo.processors) topo.online.push_back(p.processor);
    std::sort(topo.online.begin(), topo.online.end());
    topo.online.erase(std::unique(topo.online.begin(), topo.online.end()), topo.online.end());
  }
  if (topo.online.empty()) topo.online = list_cpu_directories(reader);
  if (topo.online.empty()) return topo;  // nothing known about the CPUs

  for (const int cpu : topo.online) {
    const std::string dir = cpu_dir + "cpu" + std::to_string(cpu) + "/topology/";
    logical_cpu entry{cpu, non_negative(reader.read_int(dir + "physical_package_id")),
                      non_negative(reader.read_int(dir + "core_id"))};
    const auto from_cpuinfo = std::find_if(cpuinfo.processors.begin(), cpuinfo.processors.end(),
                                           [cpu](const cpuinfo_processor& p) { return p.processor == cpu; });
    if (from_cpuinfo != cpuinfo.processors.end()) {
      if (!entry.package) entry.package = from_cpuinfo->physical_id;
      if (!entry.core) entry.core = from_cpuinfo->core_id;
    }
    topo.cpus.push_back(entry);
  }

  topo.logical_cpus = static_cast<int>(topo.online.size());
  std::set<int> packages;
  for (const auto& c : topo.cpus) {
    if (c.package) packages.insert(*c.package);
  }
  topo.sockets = packages.empty() ? 1 : static_cast<int>(packages.size());

  const auto cores = threads_by_core(topo.cpus, nullptr);
  if (!cores.empty()) {
    topo.physical_cores = static_cast<int>(cores.size());
    int most = 0;
    for (const auto& [key, threads] : cores) most = std::max(most, threads);
    topo.threads_per_core = most;
  }

  int nodes = 0;
  for (const auto& name : reader.list_dir("sys/devices/system/node")) {
    if (numbered(name, "node")) ++nodes;
  }
  topo.numa_nodes = std::max(nodes, 1);
  return topo;
}

}  // namespace ironbench::platform
