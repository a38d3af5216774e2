// The characters (code points) of UTF-8 text, for what Python counts and slices by character.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve::chat {

/// The length in bytes of the character that starts at `text[at]`: 1 to 4, and 1 for a malformed
/// byte (a character of its own).
[[nodiscard]] inline std::size_t utf8_char_length(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 1;
  if (at + length > text.size()) return 1;
  for (std::size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[at + k]) & 0xc0) != 0x80) return 1;
  }
  return length;
}

/// Calls `visit(std::string_view character)` for each character of `text`, in order, without
/// copying them.
template <typename Visit>
void for_each_utf8_char(std::string_view text, Visit&& visit) {
  for (std::size_t i = 0; i < text.size();) {
    const auto length = utf8_char_length(text, i);
    visit(text.substr(i, length));
    i += length;
  }
}

/// `text` split into its characters, each as its UTF-8 bytes; a malformed byte is one
/// character of its own.
[[nodiscard]] inline std::vector<std::string> utf8_chars(std::string_view text) {
  std::vector<std::string> chars;
  chars.reserve(text.size());
  for_each_utf8_char(text, [&](std::string_view ch) { chars.emplace_back(ch); });
  return chars;
}

}  // namespace ironbench::serve::chat
