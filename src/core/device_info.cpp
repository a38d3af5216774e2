#include "core/device_info.hpp"

namespace ironbench::core {

json to_json(const device_info& device) {
  return json{{"id", device.id},     {"kind", to_string(device.kind)},      {"index", device.index},
              {"name", device.name}, {"memory_bytes", device.memory_bytes}, {"properties", device.properties}};
}

}  // namespace ironbench::core
