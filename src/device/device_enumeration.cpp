#include "device/device_enumeration.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"
#include "device/cpu/cpu_device.hpp"
#include "device/gpu/gpu_enumeration.hpp"
#include "device/stand_in_gpus.hpp"

namespace ironbench::device {

device_enumeration enumerate_devices(const platform::host_fingerprint& host) {
  device_enumeration found;
  found.devices.push_back(describe_cpu(host));
  if (const auto stand_ins = stand_in_gpus_from_environment()) {
    for (auto& d : stand_in_gpus(*stand_ins)) found.devices.push_back(std::move(d));
    found.notes.push_back(
        fmt::format("{} stand-in GPUs (IRONBENCH_STAND_IN_GPUS): no GPU is measured", stand_ins->count));
    return found;
  }
  auto gpus = enumerate_gpus();
  for (auto& d : gpus.devices) found.devices.push_back(std::move(d));
  if (!gpus.note.empty()) found.notes.push_back(gpus.note);
  return found;
}

std::vector<core::device_info> select_devices(const device_enumeration& found, std::string_view spec) {
  std::vector<core::device_info> selected;
  auto add = [&](const core::device_info& d) {
    const bool present =
        std::any_of(selected.begin(), selected.end(), [&](const core::device_info& s) { return s.id == d.id; });
    if (!present) selected.push_back(d);
  };
  for (const auto& name : split(spec)) {
    bool matched = false;
    for (const auto& d : found.devices) {
      if (name == "all" || name == d.id || name == core::to_string(d.kind)) {
        add(d);
        matched = true;
      }
    }
    if (!matched) {
      std::vector<std::string> ids;
      for (const auto& d : found.devices) ids.push_back(d.id);
      std::string why = found.notes.empty() ? "" : fmt::format("; {}", fmt::join(found.notes, "; "));
      throw usage_error(fmt::format("no device '{}' (found: {}{})", name, fmt::join(ids, ", "), why));
    }
  }
  return selected;
}

}  // namespace ironbench::device
