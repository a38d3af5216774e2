#include "results/run_uuid.hpp"

#include <fmt/format.h>

#include <array>
#include <random>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "results/import_text.hpp"
#include "results/sha256.hpp"

namespace ironbench::results {
namespace {

std::string format_uuid(std::array<std::uint8_t, 16> bytes, int version) {
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0f) | (version << 4));
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3f) | 0x80);  // the RFC 9562 variant
  std::string text;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += fmt::format("{:02x}", bytes[i]);
  }
  return text;
}

}  // namespace

std::string new_run_uuid() {
  std::random_device entropy;  // /dev/urandom on Linux
  std::array<std::uint8_t, 16> bytes{};
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    const auto word = entropy();
    for (std::size_t j = 0; j < 4; ++j) bytes[i + j] = static_cast<std::uint8_t>(word >> (j * 8));
  }
  return format_uuid(bytes, 4);
}

std::string derived_run_uuid(const json& document, const std::string& salt) {
  json content = document;
  if (content.is_object()) content.erase("uuid");
  const auto digest = sha256(core::json_text(content) + salt);
  std::array<std::uint8_t, 16> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = digest[i];
  return format_uuid(bytes, 8);
}

bool is_run_uuid(const std::string& text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

std::string run_uuid_of(const json& document, const std::string& context) {
  if (document.is_object() && document.contains("uuid")) {
    const auto& value = document.at("uuid");
    if (!value.is_string() || !is_run_uuid(value.get<std::string>())) {
      throw usage_error(fmt::format("{}: 'uuid' is not a uuid (8-4-4-4-12 lowercase hex digits): {}", context,
                                    excerpt(value.is_string() ? value.get<std::string>() : core::json_text(value))));
    }
    return value.get<std::string>();
  }
  return derived_run_uuid(document);
}

}  // namespace ironbench::results
