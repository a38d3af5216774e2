#include "device/gpu/gpu_summary.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

namespace ironbench::device {
namespace {

std::string text_of(const json& j, const char* key) {
  if (!j.contains(key)) return {};
  const auto& v = j.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:g}", v.get<double>());
  return {};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gpu_summary_lines(const core::device_info& gpu) {
  const auto& p = gpu.properties;
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("  units",
                     fmt::format("{}, {} {}, {} MHz max, L2 {}", text_of(p, "arch"), text_of(p, "multiprocessors"),
                                 core::facts_of(gpu.kind).compute_units, text_of(p, "sm_clock_max_mhz"),
                                 format_bytes(p.value("l2_cache_bytes", 0.0))));
  lines.emplace_back("  memory", fmt::format("{}, {} MHz x {} bit", format_bytes(static_cast<double>(gpu.memory_bytes)),
                                             text_of(p, "memory_clock_max_mhz"), text_of(p, "memory_bus_width_bits")));
  lines.emplace_back("  bus", fmt::format("{}, driver API {}, runtime {}", text_of(p, "pci_bus_id"),
                                          text_of(p, "driver_api_version"), text_of(p, "runtime_version")));
  if (p.contains("peak_flops")) {
    std::vector<std::string> peaks;
    for (const auto& [dtype, peak] : p.at("peak_flops").items()) {
      if (peak.at("flops_per_second").is_number()) {
        peaks.push_back(fmt::format("{} {:.1f}", dtype, peak.at("flops_per_second").get<double>() / 1e12));
      }
    }
    std::string source;
    if (p.at("peak_flops").contains("bf16")) source = p.at("peak_flops").at("bf16").value("source", "");
    lines.emplace_back("  peak", fmt::format("{} TFLOP/s ({})", fmt::join(peaks, ", "), source));
  }
  if (p.contains("peak_bandwidth") && p.at("peak_bandwidth").at("bytes_per_second").is_number()) {
    const auto& bw = p.at("peak_bandwidth");
    lines.emplace_back("  bandwidth", fmt::format("{:.2f} TB/s ({})", bw.at("bytes_per_second").get<double>() / 1e12,
                                                  bw.value("source", "")));
  }
  if (p.contains("peers") && !p.at("peers").empty()) {
    std::vector<std::string> peers;
    for (const auto& id : p.at("peers")) peers.push_back(id.get<std::string>());
    lines.emplace_back("  peers", fmt::format("{}", fmt::join(peers, ", ")));
  }
  if (p.contains("telemetry")) {
    const auto& t = p.at("telemetry");
    if (t.value("available", false)) {
      std::vector<std::string> facts{text_of(t, "source")};
      for (const char* key : {"mig_mode", "compute_partition", "memory_partition", "virtualization_mode"}) {
        if (t.contains(key)) facts.push_back(fmt::format("{} {}", key, text_of(t, key)));
      }
      if (t.contains("power_limit_w")) facts.push_back(fmt::format("power limit {} W", text_of(t, "power_limit_w")));
      lines.emplace_back("  telemetry", fmt::format("{}", fmt::join(facts, ", ")));
    } else {
      lines.emplace_back("  telemetry", text_of(t, "reason"));
    }
  }
  return lines;
}

}  // namespace ironbench::device
