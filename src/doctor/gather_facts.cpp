#include "doctor/gather_facts.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "core/text.hpp"
#include "platform/cgroup.hpp"
#include "platform/cpu_info.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX

namespace ironbench::doctor {
namespace {

// "[always] madvise never" -> "always"
std::optional<std::string> selected_mode(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const auto open = text->find('[');
  const auto close = text->find(']', open);
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  return text->substr(open + 1, close - open - 1);
}

std::optional<std::uint64_t> meminfo_bytes(const std::string& meminfo, const std::string& key) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return std::nullopt;
}

// "16.0 GT/s PCIe" -> 16.0; "8 GT/s" -> 8
std::optional<double> link_speed(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(*text, &used);
    if (text->find("GT/s", used) == std::string::npos) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<int> small_int(const std::optional<std::int64_t>& value) {
  if (!value || *value < -1 || *value > 4096) return std::nullopt;
  return static_cast<int>(*value);
}

cpu_facts cpu_facts_of(const platform::sysfs_reader& reader) {
  const auto cpu = platform::detect_cpu(reader);
  cpu_facts f;
  f.model = cpu.model_name;
  f.isa = widest_isa(cpu.isa);
  f.online_cpus = cpu.topology.logical_cpus.value_or(0);
  f.numa_nodes = cpu.topology.numa_nodes.value_or(1);
  std::set<std::string> governors;
  for (const int n : cpu.topology.online) {
    if (auto g = reader.read_text("sys/devices/system/cpu/cpu" + std::to_string(n) + "/cpufreq/scaling_governor")) {
      governors.insert(*g);
    }
  }
  f.governors.assign(governors.begin(), governors.end());
  if (const auto boost = reader.read_int("sys/devices/system/cpu/cpufreq/boost")) {
    f.boost = *boost != 0;
    f.boost_source = "/sys/devices/system/cpu/cpufreq/boost";
  } else if (const auto no_turbo = reader.read_int("sys/devices/system/cpu/intel_pstate/no_turbo")) {
    f.boost = *no_turbo == 0;
    f.boost_source = "/sys/devices/system/cpu/intel_pstate/no_turbo";
  }
  f.smt_control = reader.read_text("sys/devices/system/cpu/smt/control");
  if (const auto active = reader.read_int("sys/devices/system/cpu/smt/active")) f.smt_active = *active != 0;
  f.numa_balancing = reader.read_int("proc/sys/kernel/numa_balancing");
  f.transparent_hugepages = selected_mode(reader.read_text("sys/kernel/mm/transparent_hugepage/enabled"));
  const auto cgroup = platform::detect_cgroup(reader);
  f.cpuset_cpus = cgroup.cpuset_cpus;
  f.cpu_quota_cores = cgroup.cpu_quota_cores;
  f.cgroup_memory_limit_bytes = cgroup.memory_limit_bytes;
  if (const auto meminfo = reader.read_text("proc/meminfo")) {
    f.memory_total_bytes = meminfo_bytes(*meminfo, "MemTotal");
    f.memory_available_bytes = meminfo_bytes(*meminfo, "MemAvailable");
  }
  return f;
}

std::vector<nic_facts> nics_of(const platform::sysfs_reader& reader) {
  std::vector<nic_facts> nics;
  for (const auto& name : reader.list_dir("sys/class/infiniband")) {
    nics.push_back({name, small_int(reader.read_int("sys/class/infiniband/" + name + "/device/numa_node")), true});
  }
  for (const auto& name : reader.list_dir("sys/class/net")) {
    if (!reader.exists("sys/class/net/" + name + "/device")) continue;  // virtual interfaces have none
    nics.push_back({name, small_int(reader.read_int("sys/class/net/" + name + "/device/numa_node")), false});
  }
  return nics;
}

// The IOMMU's mode: a GPU's group type ("identity": passthrough; "DMA", "DMA-FQ": translated),
// else the kernel command line, else off when there are no IOMMU groups.
void iommu_of(const platform::sysfs_reader& reader, const std::vector<gpu_to_check>& gpus, doctor_facts& f) {
  for (const auto& g : gpus) {
    const auto type = reader.read_text("sys/bus/pci/devices/" + ascii_lower(g.pci_bus_id) + "/iommu_group/type");
    if (!type) continue;
    f.iommu = *type == "identity" ? "passthrough" : "translated";
    f.iommu_evidence = g.id + "'s IOMMU group type is " + *type;
    return;
  }
  const auto groups = reader.list_dir("sys/kernel/iommu_groups");
  const auto cmdline = reader.read_text("proc/cmdline").value_or("");
  const bool pt =
      cmdline.find("iommu=pt") != std::string::npos || cmdline.find("iommu.passthrough=1") != std::string::npos;
  if (groups.empty()) {
    f.iommu = "off";
    f.iommu_evidence = "no IOMMU groups in /sys/kernel/iommu_groups";
  } else if (const auto type = reader.read_text("sys/kernel/iommu_groups/" + groups.front() + "/type")) {
    f.iommu = *type == "identity" ? "passthrough" : "translated";
    f.iommu_evidence = "IOMMU group " + groups.front() + " type is " + *type;
  } else {
    f.iommu = pt ? "passthrough" : "translated";
    f.iommu_evidence =
        pt ? "kernel command line has iommu=pt" : "IOMMU groups exist and the command line has no iommu=pt";
  }
}

bool checked_variable(const std::string& name) {
  for (const char* prefix : {"NCCL_", "RCCL_", "HSA_", "CUDA_", "OPENBLAS_", "OMP_", "GOTO", "MKL_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// cpu.stat of the process's cgroup: v2 ("nr_periods", "nr_throttled", "throttled_usec"), v1
// (the cpu controller's, "throttled_time" in ns).
std::optional<std::string> cgroup_cpu_stat(const platform::sysfs_reader& reader, bool& v2) {
  for (const auto& entry : platform::parse_proc_cgroup(reader.read_text("proc/self/cgroup").value_or(""))) {
    if (entry.hierarchy_id == 0) {
      v2 = true;
      if (auto text = reader.read_text("sys/fs/cgroup" + entry.path + "/cpu.stat")) return text;
    } else if (std::find(entry.controllers.begin(), entry.controllers.end(), "cpu") != entry.controllers.end()) {
      v2 = false;
      for (const char* mount : {"sys/fs/cgroup/cpu,cpuacct", "sys/fs/cgroup/cpu"}) {
        if (auto text = reader.read_text(std::string(mount) + entry.path + "/cpu.stat")) return text;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> stat_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string name;
  std::int64_t value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

// What the amdgpu driver's sysfs says of an AMD GPU's health, where the management library
// did not: the power cap against its default (hwmon power1_cap, power1_cap_default, in µW) and
// uncorrected memory errors (ras/umc_err_count: "ue: N").
void amdgpu_health(const platform::sysfs_reader& reader, const std::string& dir, json& management) {
  for (const auto& hwmon : reader.list_dir(dir + "hwmon")) {
    const auto base = dir + "hwmon/" + hwmon + "/";
    const auto cap = reader.read_int(base + "power1_cap");
    const auto standard = reader.read_int(base + "power1_cap_default");
    if (cap && standard && *cap > 0 && *standard > 0 && !management.contains("power_limit_w")) {
      management["power_limit_w"] = static_cast<double>(*cap) / 1e6;
      management["default_power_limit_w"] = static_cast<double>(*standard) / 1e6;
    }
  }
  if (const auto ras = reader.read_text(dir + "ras/umc_err_count");
      ras && !management.contains("ecc_uncorrected_volatile")) {
    std::istringstream in(*ras);
    std::string key;
    std::int64_t count = 0;
    while (in >> key >> count) {
      if (key == "ue:") management["ecc_uncorrected_volatile"] = count;
    }
  }
}

}  // namespace

vector_isa widest_isa(const platform::isa_flags& isa) {
  if (isa.avx512f) return vector_isa::avx512;
  if (isa.avx2 && isa.fma) return vector_isa::avx2;
  if (isa.avx) return vector_isa::avx;
  return vector_isa::sse;
}

const char* to_string(vector_isa isa) {
  switch (isa) {
    case vector_isa::sse: return "SSE";
    case vector_isa::avx: return "AVX";
    case vector_isa::avx2: return "AVX2";
    case vector_isa::avx512: return "AVX-512";
  }
  return "SSE";
}

doctor_facts gather_facts(const platform::sysfs_reader& reader, const std::map<std::string, std::string>& environment,
                          const std::vector<gpu_to_check>& gpus) {
  doctor_facts f;
  f.cpu = cpu_facts_of(reader);
  f.nics = nics_of(reader);
  iommu_of(reader, gpus, f);
  for (const auto& [name, value] : environment) {
    if (checked_variable(name)) f.environment[name] = value;
  }
  for (const auto& g : gpus) {
    gpu_facts gpu;
    gpu.id = g.id;
    gpu.vendor = g.vendor;
    gpu.pci_bus_id = g.pci_bus_id;
    gpu.management = g.management;
    const auto dir = "sys/bus/pci/devices/" + ascii_lower(g.pci_bus_id) + "/";
    gpu.link_speed_gts = link_speed(reader.read_text(dir + "current_link_speed"));
    gpu.max_link_speed_gts = link_speed(reader.read_text(dir + "max_link_speed"));
    gpu.link_width = small_int(reader.read_int(dir + "current_link_width"));
    gpu.max_link_width = small_int(reader.read_int(dir + "max_link_width"));
    gpu.numa_node = small_int(reader.read_int(dir + "numa_node"));
    for (const char* file : {"current_compute_partition", "current_memory_partition"}) {
      if (auto mode = reader.read_text(dir + file)) {
        gpu.management[std::string(file).substr(8)] = *mode;  // compute_partition, memory_partition
      }
    }
    amdgpu_health(reader, dir, gpu.management);
    f.gpus.push_back(std::move(gpu));
  }
  return f;
}

std::map<std::string, std::string> checked_environment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const auto name = entry.substr(0, eq);
    if (checked_variable(name)) out[name] = entry.substr(eq + 1);
  }
  return out;
}

host_counters read_host_counters(const platform::sysfs_reader& reader, double time_s) {
  host_counters c;
  c.time_s = time_s;
  c.cpu = platform::read_cpu_times(reader);
  bool v2 = true;
  if (const auto stat = cgroup_cpu_stat(reader, v2)) {
    c.nr_periods = stat_value(*stat, "nr_periods");
    c.nr_throttled = stat_value(*stat, "nr_throttled");
    if (const auto t = stat_value(*stat, v2 ? "throttled_usec" : "throttled_time")) {
      c.throttled_s = static_cast<double>(*t) * (v2 ? 1e-6 : 1e-9);
    }
  }
  return c;
}

run_window_facts window_between(const host_counters& before, const host_counters& after) {
  run_window_facts w;
  w.duration_s = after.time_s - before.time_s;
  if (before.cpu && after.cpu) {
    const double ticks = after.cpu->total() - before.cpu->total();
    if (ticks > 0) {
      w.steal_ticks = after.cpu->steal - before.cpu->steal;
      w.steal_share = *w.steal_ticks / ticks;
    }
  }
  if (before.nr_throttled && after.nr_throttled) w.throttled_periods = *after.nr_throttled - *before.nr_throttled;
  if (before.nr_periods && after.nr_periods) w.periods = *after.nr_periods - *before.nr_periods;
  if (before.throttled_s && after.throttled_s) w.throttled_s = *after.throttled_s - *before.throttled_s;
  return w;
}

}  // namespace ironbench::doctor
