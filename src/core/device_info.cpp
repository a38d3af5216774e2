#include "core/device_info.hpp"

namespace ironbench::core {

const char* to_string(device_kind kind) {
  switch (kind) {
    case device_kind::cpu: return "cpu";
    case device_kind::cuda: return "cuda";
    case device_kind::hip: return "hip";
  }
  return "unknown";
}

json to_json(const device_info& device) {
  return json{{"id", device.id},
              {"kind", to_string(device.kind)},
              {"index", device.index},
              {"name", device.name},
              {"memory_bytes", device.memory_bytes},
              {"properties", device.properties}};
}

}  // namespace ironbench::core
