#include "serve/common/prompt_identity.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_text.hpp"

namespace ironbench::serve {

std::uint64_t fnv1a_64(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::optional<std::uint64_t> prompt_hash_value(const json& body) {
  if (!body.is_object()) return std::nullopt;
  for (const char* field : {"prompt", "messages"}) {
    const auto it = body.find(field);
    if (it == body.end()) continue;
    auto text = core::json_text(*it);
    // Messages are objects, whose keys ironbench's JSON keeps in the order written: sorted
    // (nlohmann::json's order) so that {"role", "content"} and {"content", "role"} are one prompt.
    if (it->is_array() && std::any_of(it->begin(), it->end(), [](const json& m) { return m.is_object(); })) {
      text = core::json_text(nlohmann::json::parse(text));
    }
    return fnv1a_64(std::string(field) + ":" + text);
  }
  return std::nullopt;
}

std::string prompt_hash(const std::string& body_json) {
  const auto body = json::parse(body_json, nullptr, false);
  if (body.is_discarded()) return "";
  const auto hash = prompt_hash_value(body);
  return hash ? fmt::format("{:016x}", *hash) : "";
}

}  // namespace ironbench::serve
