// to_json(host_fingerprint): nested objects, null for unknown.
#include "platform/cpu_list.hpp"
#include "platform/cpu_peak.hpp"
#include "platform/host_fingerprint.hpp"

namespace ironbench::platform {

namespace {

using nlohmann::json;

template <typename T>
json value_or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json cpu_json(const host_fingerprint& host) {
  const cpu_info& cpu = host.cpu;
  const auto& topo = cpu.topology;
  json caches = json::array();
  for (const auto& c : cpu.caches) {
    caches.push_back({{"level", c.level},
                      {"type", c.type},
                      {"size_bytes", c.size_bytes},
                      {"instances", c.instances},
                      {"total_bytes", c.total_bytes}});
  }
  const auto& isa = cpu.isa;
  const json isa_json = {{"sse2", isa.sse2},         {"avx", isa.avx},           {"avx2", isa.avx2},
                         {"fma", isa.fma},           {"avx512f", isa.avx512f},   {"avx512_bf16", isa.avx512_bf16},
                         {"amx_bf16", isa.amx_bf16}, {"amx_tile", isa.amx_tile}, {"neon", isa.neon},
                         {"sve", isa.sve},           {"sve2", isa.sve2},         {"bf16", isa.bf16}};
  const auto& f = cpu.frequency;
  const auto nominal = f.nominal();
  const json frequency = {{"max_mhz", value_or_null(f.max_mhz)},
                          {"base_mhz", value_or_null(f.base_mhz)},
                          {"base_source", text_or_null(f.base_source)},
                          {"cpuinfo_mhz", value_or_null(f.cpuinfo_mhz)},
                          {"measured_mhz", value_or_null(f.measured_mhz)},
                          {"nominal_mhz", value_or_null(nominal.mhz)},
                          {"frequency_source", text_or_null(f.frequency_source)}};
  json peak = json::object();
  for (const auto dtype : cpu_peak_dtypes) {
    const auto estimate = cpu_peak_flops(host, dtype);
    peak[std::string(dtype)] = {{"flops_per_second", value_or_null(estimate.flops_per_second)},
                                {"note", estimate.note}};
  }
  return {{"vendor", text_or_null(cpu.vendor)},
          {"model_name", text_or_null(cpu.model_name)},
          {"family", value_or_null(cpu.family)},
          {"model", value_or_null(cpu.model)},
          {"stepping", value_or_null(cpu.stepping)},
          {"logical_cpus", value_or_null(topo.logical_cpus)},
          {"online_cpus", topo.online.empty() ? json(nullptr) : json(format_cpu_list(topo.online))},
          {"sockets", value_or_null(topo.sockets)},
          {"physical_cores", value_or_null(topo.physical_cores)},
          {"threads_per_core", value_or_null(topo.threads_per_core)},
          {"numa_nodes", value_or_null(topo.numa_nodes)},
          {"usable_physical_cores", value_or_null(usable_physical_cores(host))},
          {"caches", caches},
          {"last_level_cache_bytes_total", value_or_null(cpu.last_level_cache_bytes_total)},
          {"isa", isa_json},
          {"frequency", frequency},
          {"peak", peak}};
}

json virtualization_json(const virtualization_info& v) {
  json evidence = v.evidence;
  return {{"is_virtual_machine", v.is_virtual_machine},
          {"hypervisor", text_or_null(v.hypervisor)},
          {"cpuid_hypervisor_bit", v.cpuid_available ? json(v.cpuid_hypervisor_bit) : json(nullptr)},
          {"cpuid_hypervisor_vendor", text_or_null(v.cpuid_hypervisor_vendor)},
          {"cpuinfo_hypervisor_flag", v.cpuinfo_hypervisor_flag},
          {"sys_hypervisor_type", text_or_null(v.sys_hypervisor_type)},
          {"dmi",
           {{"sys_vendor", text_or_null(v.dmi.sys_vendor)},
            {"product_name", text_or_null(v.dmi.product_name)},
            {"board_vendor", text_or_null(v.dmi.board_vendor)},
            {"bios_vendor", text_or_null(v.dmi.bios_vendor)}}},
          {"evidence", evidence}};
}

json container_json(const container_info& c) {
  json evidence = c.evidence;
  return {{"in_container", c.in_container},
          {"engine", text_or_null(c.engine)},
          {"engine_version", text_or_null(c.engine_version)},
          {"orchestrator", text_or_null(c.orchestrator)},
          {"cgroup_namespace_private", value_or_null(c.cgroup_namespace_private)},
          {"evidence", evidence}};
}

}  // namespace

nlohmann::json to_json(const host_fingerprint& host) {
  const auto& m = host.memory;
  const auto& os = host.os;
  const auto& cg = host.cgroup;
  json libraries = json::object();
  for (const auto& [name, version] : host.software.libraries) libraries[name] = version;
  return {
      {"hostname", text_or_null(host.hostname)},
      {"cpu", cpu_json(host)},
      {"memory",
       {{"total_bytes", value_or_null(m.total_bytes)},
        {"available_bytes", value_or_null(m.available_bytes)},
        {"huge_page_size_bytes", value_or_null(m.huge_page_size_bytes)},
        {"usable_bytes", value_or_null(host.usable_memory_bytes())}}},
      {"os",
       {{"kernel_release", text_or_null(os.kernel_release)},
        {"pretty_name", text_or_null(os.pretty_name)},
        {"id", text_or_null(os.id)},
        {"version_id", text_or_null(os.version_id)},
        {"architecture", text_or_null(os.architecture)}}},
      {"virtualization", virtualization_json(host.virtualization)},
      {"container", container_json(host.container)},
      {"cgroup",
       {{"version", value_or_null(cg.version)},
        {"path", text_or_null(cg.path)},
        {"cpuset", text_or_null(cg.cpuset)},
        {"cpuset_cpus", value_or_null(cg.cpuset_cpus)},
        {"cpu_quota_cores", value_or_null(cg.cpu_quota_cores)},
        {"memory_limit_bytes", value_or_null(cg.memory_limit_bytes)}}},
      {"environment_kind", host.environment_kind},
      {"software",
       {{"compiler", text_or_null(host.software.compiler)},
        {"cxx_standard_library", text_or_null(host.software.cxx_standard_library)},
        {"glibc", text_or_null(host.software.glibc)},
        {"openmp", text_or_null(host.software.openmp)},
        {"libraries", libraries}}},
  };
}

}  // namespace ironbench::platform
