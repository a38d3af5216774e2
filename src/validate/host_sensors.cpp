#include "validate/host_sensors.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace ironbench::validate {
namespace {

bool starts_with(const std::string& text, const std::string& head) { return text.rfind(head, 0) == 0; }

void read_clock(const platform::sysfs_reader& reader, host_sensor_reading& r) {
  double sum = 0;
  int count = 0;
  for (const auto& cpu : reader.list_dir("sys/devices/system/cpu")) {
    if (!starts_with(cpu, "cpu") || cpu.size() < 4 || !std::isdigit(static_cast<unsigned char>(cpu[3]))) continue;
    if (const auto khz = reader.read_int("sys/devices/system/cpu/" + cpu + "/cpufreq/scaling_cur_freq")) {
      sum += static_cast<double>(*khz) / 1000.0;
      ++count;
    }
  }
  if (count > 0) {
    r.clock_mhz = sum / count;
    r.clock_source = "cpufreq scaling_cur_freq";
    return;
  }
  if (const auto info = reader.read_text("proc/cpuinfo")) {
    std::istringstream in(*info);
    std::string line;
    while (std::getline(in, line)) {
      if (!starts_with(line, "cpu MHz")) continue;
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      try {
        sum += std::stod(line.substr(colon + 1));
        ++count;
      } catch (const std::exception&) {
      }
    }
  }
  if (count > 0) {
    r.clock_mhz = sum / count;
    r.clock_source = "/proc/cpuinfo cpu MHz (no cpufreq: a VM's is the nominal clock)";
  } else {
    r.not_available.emplace_back("clock: no cpufreq and no cpu MHz in /proc/cpuinfo");
  }
}

void read_temperature(const platform::sysfs_reader& reader, host_sensor_reading& r) {
  static const char* cpu_sensors[] = {"coretemp", "k10temp", "zenpower", "cpu_thermal", "soc_thermal"};
  for (const auto& hwmon : reader.list_dir("sys/class/hwmon")) {
    const auto base = "sys/class/hwmon/" + hwmon + "/";
    auto name = reader.read_text(base + "name").value_or("");
    name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return c == '\n' || c == ' '; }), name.end());
    if (std::find(std::begin(cpu_sensors), std::end(cpu_sensors), name) == std::end(cpu_sensors)) continue;
    for (const auto& file : reader.list_dir(base)) {
      if (!starts_with(file, "temp") || file.find("_input") == std::string::npos) continue;
      if (const auto milli = reader.read_int(base + file)) {
        const double c = static_cast<double>(*milli) / 1000.0;
        if (!r.temperature_c || c > *r.temperature_c) r.temperature_c = c;
        r.temperature_source = "hwmon " + name;
      }
    }
  }
  if (r.temperature_c) return;
  for (const auto& zone : reader.list_dir("sys/class/thermal")) {
    if (!starts_with(zone, "thermal_zone")) continue;
    const auto type = reader.read_text("sys/class/thermal/" + zone + "/type").value_or("");
    if (type.find("x86_pkg_temp") == std::string::npos && type.find("cpu") == std::string::npos) continue;
    if (const auto milli = reader.read_int("sys/class/thermal/" + zone + "/temp")) {
      const double c = static_cast<double>(*milli) / 1000.0;
      if (!r.temperature_c || c > *r.temperature_c) r.temperature_c = c;
      r.temperature_source = "thermal zone x86_pkg_temp/cpu";
    }
  }
  if (!r.temperature_c) r.not_available.emplace_back("temperature: no hwmon CPU sensor and no CPU thermal zone");
}

void read_energy(const platform::sysfs_reader& reader, host_sensor_reading& r) {
  double joules = 0, range = 0;
  bool any = false;
  for (const auto& domain : reader.list_dir("sys/class/powercap")) {
    // packages only: intel-rapl:0, intel-rapl:1 (their subdomains intel-rapl:0:0 are inside them)
    if (!starts_with(domain, "intel-rapl:") || std::count(domain.begin(), domain.end(), ':') != 1) continue;
    const auto base = "sys/class/powercap/" + domain + "/";
    if (const auto uj = reader.read_int(base + "energy_uj")) {
      joules += static_cast<double>(*uj) / 1e6;
      range += static_cast<double>(reader.read_int(base + "max_energy_range_uj").value_or(0)) / 1e6;
      any = true;
    }
  }
  if (any) {
    r.energy_j = joules;
    if (range > 0) r.energy_range_j = range;
  } else {
    r.not_available.emplace_back("power: no readable RAPL energy counter (powercap intel-rapl)");
  }
}

}  // namespace

host_sensor_reading read_host_sensors(const platform::sysfs_reader& reader) {
  host_sensor_reading r;
  read_clock(reader, r);
  read_temperature(reader, r);
  read_energy(reader, r);
  return r;
}

std::optional<double> power_between(const host_sensor_reading& before, const host_sensor_reading& after,
                                    double seconds) {
  if (!before.energy_j || !after.energy_j || !(seconds > 0)) return std::nullopt;
  double used = *after.energy_j - *before.energy_j;
  if (used < 0) {
    if (!after.energy_range_j) return std::nullopt;
    used += *after.energy_range_j;
  }
  return used / seconds;
}

}  // namespace ironbench::validate
