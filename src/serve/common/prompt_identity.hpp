// A prompt's identity: a hash of what a request asks (its prompt, or its chat messages), so
// that two runs' requests for the same prompt can be matched whatever order they were sent
// in (--check-outputs), and so that serve-sim's text follows from the prompt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace ironbench::serve {

/// The 64-bit FNV-1a hash of the request's "prompt" (completions: text or token ids) or
/// "messages" (chat), as canonical JSON text (keys sorted, no spaces) after the field's name;
/// nullopt when the body has neither. The rest of the body (model, max_tokens, sampling) is
/// not part of the identity.
[[nodiscard]] std::optional<std::uint64_t> prompt_hash_value(const json& body);

/// prompt_hash_value of a body's JSON text as 16 hex digits; empty when the text is not a JSON
/// object with a prompt or messages.
[[nodiscard]] std::string prompt_hash(const std::string& body_json);

/// The 64-bit FNV-1a hash of `text`.
[[nodiscard]] std::uint64_t fnv1a_64(std::string_view text);

}  // namespace ironbench::serve
