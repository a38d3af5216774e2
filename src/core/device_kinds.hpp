// The kinds of device ironbench measures (cpu, cuda, hip) in one table: each kind's name in
// results and --device ids, whether it is a GPU, its vendor and what its compute units are
// called. Parsing, printing and the per-vendor facts all read this table; a new GPU vendor is a
// row here (see docs/contributing.md for the rest).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace ironbench::core {

/// A device kind; its value indexes device_kinds.
enum class device_kind { cpu, cuda, hip };

/// One kind's facts.
struct device_kind_facts {
  device_kind kind;
  std::string_view name;           ///< in results ("kind") and device ids ("cuda:0"); also the GPU runtime's name
  bool gpu;                        ///< runs GPU benchmarks, has GPU telemetry
  std::string_view vendor;         ///< "NVIDIA", "AMD"; empty for the host CPU
  std::string_view compute_units;  ///< what the device summary calls its units: "SMs", "CUs"
};

/// Every kind, in enum order.
inline constexpr std::array<device_kind_facts, 3> device_kinds = {{
    {device_kind::cpu, "cpu", false, "", "cores"},
    {device_kind::cuda, "cuda", true, "NVIDIA", "SMs"},
    {device_kind::hip, "hip", true, "AMD", "CUs"},
}};

/// The row of `kind`.
[[nodiscard]] constexpr const device_kind_facts& facts_of(device_kind kind) {
  return device_kinds[static_cast<std::size_t>(kind)];
}

/// The kind named `name` ("cpu", "cuda", "hip"), or nullopt.
[[nodiscard]] constexpr std::optional<device_kind> parse_device_kind(std::string_view name) {
  for (const auto& row : device_kinds) {
    if (row.name == name) return row.kind;
  }
  return std::nullopt;
}

/// The kind's name ("cpu", "cuda", "hip").
[[nodiscard]] const char* to_string(device_kind kind);

/// "cpu, cuda, hip": every name, for errors.
[[nodiscard]] std::string device_kind_names();

}  // namespace ironbench::core
