#include "telemetry/gpu_sample.hpp"

#include <fmt/format.h>

namespace ironbench::telemetry {

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  static const char* const names[] = {"gpu_idle",
                                      "applications_clocks_setting",
                                      "sw_power_cap",
                                      "hw_slowdown",
                                      "sync_boost",
                                      "sw_thermal_slowdown",
                                      "hw_thermal_slowdown",
                                      "hw_power_brake_slowdown",
                                      "display_clock_setting"};
  std::vector<std::string> out;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if ((mask & (std::uint64_t{1} << bit)) == 0) continue;
    out.emplace_back(bit < std::size(names) ? std::string(names[bit]) : fmt::format("bit_{}", bit));
  }
  return out;
}

}  // namespace ironbench::telemetry
