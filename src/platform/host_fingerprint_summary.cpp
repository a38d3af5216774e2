// summary_lines(host_fingerprint): the console view of `ironbench sysinfo`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "platform/cpu_peak.hpp"
#include "platform/host_fingerprint.hpp"

namespace ironbench::platform {

namespace {

// Binary units: "48 KiB", "23.4 GiB".
std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<std::uint64_t>(value))) {
    return fmt::format("{:.0f} {}", value, units[unit]);
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string format_flops(double flops) {
  if (flops >= 1e12) return fmt::format("{:.2f} TFLOP/s", flops / 1e12);
  return fmt::format("{:.1f} GFLOP/s", flops / 1e9);
}

std::string count(std::optional<int> n, const char* noun) {
  if (!n) return fmt::format("? {}s", noun);
  return fmt::format("{} {}{}", *n, noun, *n == 1 ? "" : "s");
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  return fmt::format("{}", fmt::join(items, separator));
}

std::string cpu_line(const cpu_info& cpu) {
  std::string name = cpu.model_name.empty() ? "unknown CPU" : cpu.model_name;
  if (cpu.family && cpu.model) {
    name += fmt::format(" (family {:#x} model {:#x})", *cpu.family, *cpu.model);
  }
  const auto& t = cpu.topology;
  return fmt::format("{}, {}, {}, {}, {}", name, count(t.sockets, "socket"), count(t.physical_cores, "core"),
                     count(t.logical_cpus, "thread"), count(t.numa_nodes, "NUMA node"));
}

std::string isa_line(const isa_flags& isa) {
  std::vector<std::string> on;
  const std::pair<bool, const char*> all[] = {
      {isa.sse2, "sse2"},         {isa.avx, "avx"},           {isa.avx2, "avx2"},
      {isa.fma, "fma"},           {isa.avx512f, "avx512f"},   {isa.avx512_bf16, "avx512_bf16"},
      {isa.amx_bf16, "amx_bf16"}, {isa.amx_tile, "amx_tile"}, {isa.neon, "neon"},
      {isa.sve, "sve"},           {isa.sve2, "sve2"},         {isa.bf16, "bf16"}};
  for (const auto& [set, name] : all) {
    if (set) on.emplace_back(name);
  }
  return on.empty() ? "none detected" : join(on, " ");
}

std::string frequency_line(const cpu_frequency& f) {
  const auto mhz = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f} MHz", *v) : std::string("?"); };
  const auto nominal = f.nominal();
  if (!nominal.mhz) return "unknown";
  return fmt::format("{} ({}); max {}, base {}, cpuinfo {}, measured {}", mhz(nominal.mhz), nominal.source,
                     mhz(f.max_mhz), mhz(f.base_mhz), mhz(f.cpuinfo_mhz), mhz(f.measured_mhz));
}

std::string cache_line(const cpu_info& cpu) {
  std::vector<std::string> parts;
  for (const auto& c : cpu.caches) {
    parts.push_back(fmt::format("{} {} x{}", c.label(), format_bytes(c.size_bytes), c.instances));
  }
  if (parts.empty()) return "unknown";
  std::string line = join(parts, ", ");
  if (cpu.last_level_cache_bytes_total) {
    line += fmt::format(" (last level {} total)", format_bytes(*cpu.last_level_cache_bytes_total));
  }
  return line;
}

std::string memory_line(const host_fingerprint& host) {
  const auto& m = host.memory;
  std::string line = fmt::format("{} total, {} available", m.total_bytes ? format_bytes(*m.total_bytes) : "?",
                                 m.available_bytes ? format_bytes(*m.available_bytes) : "?");
  if (host.cgroup.memory_limit_bytes) {
    line += fmt::format(", cgroup limit {}", format_bytes(*host.cgroup.memory_limit_bytes));
  }
  return line;
}

std::string environment_line(const host_fingerprint& host) {
  std::vector<std::string> details;
  if (!host.container.engine.empty()) details.push_back(host.container.engine);
  if (host.container.orchestrator == "kubernetes") details.push_back("kubernetes");
  if (!host.virtualization.hypervisor.empty()) details.push_back(host.virtualization.hypervisor);
  if (details.empty()) return host.environment_kind;
  return fmt::format("{} ({})", host.environment_kind, join(details, "; "));
}

std::string cgroup_line(const cgroup_limits& cg) {
  if (!cg.version) return "unknown";
  std::string line = fmt::format("v{}", *cg.version);
  line +=
      cg.cpuset.empty() ? ", cpuset unknown" : fmt::format(", cpuset {} ({})", cg.cpuset, count(cg.cpuset_cpus, "CPU"));
  line += cg.memory_limit_bytes ? ", memory limit " + format_bytes(*cg.memory_limit_bytes)
                                : std::string(", no memory limit");
  line +=
      cg.cpu_quota_cores ? fmt::format(", CPU quota {:g} CPUs", *cg.cpu_quota_cores) : std::string(", no CPU quota");
  return line;
}

std::string software_line(const software_info& sw) {
  std::vector<std::string> parts;
  if (!sw.compiler.empty()) parts.push_back(sw.compiler);
  if (!sw.cxx_standard_library.empty()) parts.push_back(sw.cxx_standard_library);
  if (!sw.glibc.empty()) parts.push_back("glibc " + sw.glibc);
  if (!sw.openmp.empty()) parts.push_back("OpenMP " + sw.openmp);
  for (const auto& [name, version] : sw.libraries) parts.push_back(name + " " + version);
  return parts.empty() ? "unknown" : join(parts, ", ");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> summary_lines(const host_fingerprint& host) {
  std::vector<std::pair<std::string, std::string>> lines;
  const auto& os = host.os;
  lines.emplace_back("Host", host.hostname.empty() ? "unknown" : host.hostname);
  lines.emplace_back("CPU", cpu_line(host.cpu));
  lines.emplace_back("ISA", isa_line(host.cpu.isa));
  lines.emplace_back("Clock", frequency_line(host.cpu.frequency));
  lines.emplace_back("Caches", cache_line(host.cpu));
  lines.emplace_back("Memory", memory_line(host));
  lines.emplace_back("OS", fmt::format("{}, kernel {}, {}", os.pretty_name.empty() ? "unknown" : os.pretty_name,
                                       os.kernel_release.empty() ? "?" : os.kernel_release, os.architecture));
  lines.emplace_back("Environment", environment_line(host));
  std::vector<std::string> evidence = host.virtualization.evidence;
  evidence.insert(evidence.end(), host.container.evidence.begin(), host.container.evidence.end());
  if (!evidence.empty()) lines.emplace_back("Evidence", join(evidence, ", "));
  lines.emplace_back("cgroup", cgroup_line(host.cgroup));
  for (const auto dtype : cpu_peak_dtypes) {
    const auto peak = cpu_peak_flops(host, dtype);
    lines.emplace_back(fmt::format("CPU peak {}", dtype),
                       peak.flops_per_second ? fmt::format("{} ({})", format_flops(*peak.flops_per_second), peak.note)
                                             : fmt::format("unknown ({})", peak.note));
  }
  lines.emplace_back("Software", software_line(host.software));
  return lines;
}

}  // namespace ironbench::platform
