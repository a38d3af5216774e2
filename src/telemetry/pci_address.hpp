// PCI addresses as runtimes print them ("0000:1b:00.0") and as ROCm SMI packs them (BDFID).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ironbench::telemetry {

struct pci_address {
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  std::uint32_t function = 0;
  friend bool operator==(const pci_address&, const pci_address&) = default;
};

/// Parses "DDDD:BB:DD.F" or "DDDDDDDD:BB:DD.F" or "BB:DD.F" (hex, any case); nullopt otherwise.
[[nodiscard]] std::optional<pci_address> parse_pci_bus_id(const std::string& text);

/// Unpacks ROCm SMI's BDFID: domain << 32 | bus << 8 | device << 3 | function (bits 28-31,
/// a partition index on partitioned GPUs, are ignored).
[[nodiscard]] pci_address pci_address_from_bdfid(std::uint64_t bdfid);

/// "0000:1b:00.0".
[[nodiscard]] std::string to_string(const pci_address& address);

}  // namespace ironbench::telemetry
