#include "telemetry/pci_address.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace ironbench::telemetry {
namespace {

bool parse_hex(const std::string& text, std::size_t begin, std::size_t end, std::size_t max_digits,
               std::uint32_t& value) {
  if (end <= begin || end - begin > max_digits) return false;
  const auto* first = text.data() + begin;
  const auto* last = text.data() + end;
  const auto [ptr, ec] = std::from_chars(first, last, value, 16);
  return ec == std::errc() && ptr == last;
}

}  // namespace

std::optional<pci_address> parse_pci_bus_id(const std::string& text) {
  pci_address a;
  const auto dot = text.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const auto second_colon = text.rfind(':', dot);
  if (second_colon == std::string::npos) return std::nullopt;
  const auto first_colon = second_colon == 0 ? std::string::npos : text.rfind(':', second_colon - 1);
  const std::size_t bus_begin = first_colon == std::string::npos ? 0 : first_colon + 1;
  if (first_colon != std::string::npos && !parse_hex(text, 0, first_colon, 8, a.domain)) return std::nullopt;
  if (!parse_hex(text, bus_begin, second_colon, 2, a.bus)) return std::nullopt;
  if (!parse_hex(text, second_colon + 1, dot, 2, a.device) || a.device > 0x1f) return std::nullopt;
  if (!parse_hex(text, dot + 1, text.size(), 1, a.function) || a.function > 7) return std::nullopt;
  return a;
}

pci_address pci_address_from_bdfid(std::uint64_t bdfid) {
  return {static_cast<std::uint32_t>(bdfid >> 32), static_cast<std::uint32_t>((bdfid >> 8) & 0xff),
          static_cast<std::uint32_t>((bdfid >> 3) & 0x1f), static_cast<std::uint32_t>(bdfid & 0x7)};
}

std::string to_string(const pci_address& a) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", a.domain, a.bus, a.device, a.function);
}

}  // namespace ironbench::telemetry
