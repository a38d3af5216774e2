#include "platform/cpu_info.hpp"

#include <algorithm>
#include <cstdlib>

#include "platform/proc_cpuinfo.hpp"

namespace ironbench::platform {

isa_flags isa_flags::from_flags(const std::vector<std::string>& flags) {
  const auto has = [&flags](std::string_view name) {
    return std::find(flags.begin(), flags.end(), name) != flags.end();
  };
  isa_flags isa;
  isa.sse2 = has("sse2");
  isa.avx = has("avx");
  isa.avx2 = has("avx2");
  isa.fma = has("fma");
  isa.avx512f = has("avx512f");
  isa.avx512_bf16 = has("avx512_bf16");
  isa.amx_bf16 = has("amx_bf16");
  isa.amx_tile = has("amx_tile");
  isa.neon = has("asimd") || has("neon");
  isa.sve = has("sve");
  isa.sve2 = has("sve2");
  isa.bf16 = has("bf16");
  return isa;
}

nominal_frequency cpu_frequency::nominal() const {
  if (max_mhz) return {max_mhz, "cpufreq max"};
  if (measured_mhz) return {measured_mhz, "measured"};
  if (base_mhz) return {base_mhz, base_source};
  if (cpuinfo_mhz) return {cpuinfo_mhz, "cpuinfo"};
  return {};
}

bool cpu_info::has_flag(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::optional<double> parse_model_name_mhz(std::string_view model_name) {
  const auto at = model_name.rfind('@');
  if (at == std::string_view::npos) return std::nullopt;
  const std::string rest(trim(model_name.substr(at + 1)));
  char* end = nullptr;
  const double value = std::strtod(rest.c_str(), &end);
  if (end == rest.c_str() || !(value > 0)) return std::nullopt;
  const std::string_view unit = trim(std::string_view(end));
  if (unit.rfind("GHz", 0) == 0) return value * 1000.0;
  if (unit.rfind("MHz", 0) == 0) return value;
  return std::nullopt;
}

namespace {

// cpufreq files hold kHz.
std::optional<double> read_khz_as_mhz(const sysfs_reader& reader, const std::string& path) {
  const auto khz = reader.read_int(path);
  if (!khz || *khz <= 0) return std::nullopt;
  return static_cast<double>(*khz) / 1000.0;
}

cpu_frequency detect_frequency(const sysfs_reader& reader, const proc_cpuinfo& cpuinfo, const cpu_topology& topo) {
  const int first_cpu = topo.online.empty() ? 0 : topo.online.front();
  const std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(first_cpu) + "/cpufreq/";
  cpu_frequency freq;
  freq.max_mhz = read_khz_as_mhz(reader, dir + "cpuinfo_max_freq");
  if ((freq.base_mhz = read_khz_as_mhz(reader, dir + "base_frequency"))) {
    freq.base_source = "cpufreq base";
  } else if ((freq.base_mhz = parse_model_name_mhz(cpuinfo.model_name))) {
    freq.base_source = "model name";
  }
  if (cpuinfo.cpu_mhz && *cpuinfo.cpu_mhz > 0) freq.cpuinfo_mhz = cpuinfo.cpu_mhz;
  freq.frequency_source = freq.nominal().source;
  return freq;
}

}  // namespace

cpu_info detect_cpu(const sysfs_reader& reader) {
  const proc_cpuinfo parsed = parse_proc_cpuinfo(reader.read_text("proc/cpuinfo").value_or(""));
  cpu_info cpu;
  cpu.vendor = parsed.vendor;
  cpu.model_name = parsed.model_name;
  cpu.family = parsed.family;
  cpu.model = parsed.model;
  cpu.stepping = parsed.stepping;
  cpu.topology = detect_topology(reader, parsed);
  cpu.caches = detect_caches(reader, cpu.topology.online);
  cpu.last_level_cache_bytes_total = last_level_cache_bytes_total(cpu.caches);
  cpu.flags = parsed.flags;
  cpu.isa = isa_flags::from_flags(parsed.flags);
  cpu.frequency = detect_frequency(reader, parsed, cpu.topology);
  return cpu;
}

}  // namespace ironbench::platform
