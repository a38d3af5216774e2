// What the host exposes of its CPUs' clocks, temperature and power, for a burn-in's CPU
// intervals: cpufreq (else /proc/cpuinfo's "cpu MHz"), hwmon's CPU sensors (else a CPU thermal
// zone), and RAPL's package energy counters. Whatever is missing is left empty and named.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/sysfs_reader.hpp"

namespace ironbench::validate {

struct host_sensor_reading {
  std::optional<double> clock_mhz;      ///< mean over the online CPUs
  std::string clock_source;             ///< "cpufreq scaling_cur_freq", "/proc/cpuinfo cpu MHz"
  std::optional<double> temperature_c;  ///< the hottest CPU sensor
  std::string temperature_source;
  std::optional<double> energy_j;          ///< RAPL package energy, summed over the packages
  std::optional<double> energy_range_j;    ///< where the counters wrap (summed max_energy_range_uj)
  std::vector<std::string> not_available;  ///< "temperature: no hwmon CPU sensor or CPU thermal zone", ...
};

/// The sensors under `reader`'s root now.
[[nodiscard]] host_sensor_reading read_host_sensors(const platform::sysfs_reader& reader);

/// Mean power in W between two readings `seconds` apart (RAPL; a counter that wrapped once is
/// unwrapped with its range); nullopt without energy counters or time.
[[nodiscard]] std::optional<double> power_between(const host_sensor_reading& before, const host_sensor_reading& after,
                                                  double seconds);

}  // namespace ironbench::validate
