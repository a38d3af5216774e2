#include "core/device_kinds.hpp"

namespace ironbench::core {

namespace {
constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < device_kinds.size(); ++i) {
    if (static_cast<std::size_t>(device_kinds[i].kind) != i) return false;
  }
  return true;
}
static_assert(rows_in_enum_order(), "device_kinds is indexed by device_kind");
}  // namespace

const char* to_string(device_kind kind) { return facts_of(kind).name.data(); }

std::string device_kind_names() {
  std::string names;
  for (const auto& row : device_kinds) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace ironbench::core
