// ironbench sysinfo: the host fingerprint and the devices found.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"
#include "device/gpu/gpu_summary.hpp"
#include "session/build_description.hpp"
#include "session/live_host.hpp"

namespace ironbench::cli {

command_action add_sysinfo_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("sysinfo", "Describe this host: CPU, memory, OS, VM/container, cgroup limits, devices");
  auto json_output = std::make_shared<bool>(false);
  command->add_flag("--json", *json_output, "Print JSON instead of text");
  return [json_output] {
    const auto host = session::detect_live_host();
    if (*json_output) {
      json devices = json::array();
      for (const auto& d : host.devices.devices) devices.push_back(core::to_json(d));
      const json document{{"tool", session::build_description()},
                          {"host", session::host_json(host.fingerprint)},
                          {"devices", devices},
                          {"device_notes", host.devices.notes}};
      std::cout << core::json_text(document, 2) << '\n';
      return exit_ok;
    }
    for (const auto& [label, text] : platform::summary_lines(host.fingerprint)) {
      std::cout << fmt::format("{:<16} {}\n", label, text);
    }
    for (const auto& d : host.devices.devices) {
      std::cout << fmt::format("{:<16} {} ({}, {} usable)\n", "Device " + d.id, d.name, core::to_string(d.kind),
                               format_bytes(static_cast<double>(d.memory_bytes)));
      if (d.kind == core::device_kind::cpu) {
        if (d.properties.contains("measured_flops")) {
          const auto& fp64 = d.properties["measured_flops"]["fp64"];
          std::cout << fmt::format("{:<16} fp64 {:.1f} GFLOP/s ({})\n", "  measured",
                                   fp64.value("flops_per_second", 0.0) / 1e9, fp64.value("source", std::string()));
        }
        continue;
      }
      for (const auto& [label, text] : device::gpu_summary_lines(d)) {
        std::cout << fmt::format("{:<16} {}\n", label, text);
      }
    }
    for (const auto& note : host.devices.notes) std::cout << fmt::format("{:<16} {}\n", "Note", note);
    return exit_ok;
  };
}

}  // namespace ironbench::cli
