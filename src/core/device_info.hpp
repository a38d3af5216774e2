// What the core knows of a device: enough to plan cases, label results and size work.
// Backends (src/device) fill it in; results store it.
#pragma once

#include <cstdint>
#include <string>

#include "core/device_kinds.hpp"
#include "core/json.hpp"

namespace ironbench::core {

struct device_info {
  std::string id;  ///< "cpu", "cuda:0", "hip:1": what --device takes
  device_kind kind = device_kind::cpu;
  int index = 0;                     ///< ordinal within its kind
  std::string name;                  ///< marketing name: "AMD EPYC", "NVIDIA H100 80GB HBM3"
  std::uint64_t memory_bytes = 0;    ///< memory benchmarks may use (host: min(RAM, cgroup limit))
  json properties = json::object();  ///< backend details for the fingerprint
};

[[nodiscard]] json to_json(const device_info& device);

/// Whether the device is a GPU (its kind's row in device_kinds says so).
[[nodiscard]] inline bool is_gpu(const device_info& device) { return facts_of(device.kind).gpu; }

}  // namespace ironbench::core
