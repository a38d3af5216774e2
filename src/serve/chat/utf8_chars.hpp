// The characters (code points) of UTF-8 text, for what Python counts and slices by character.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve::chat {

/// `text` split into its characters, each as its UTF-8 bytes; a malformed byte is one
/// character of its own.
[[nodiscard]] inline std::vector<std::string> utf8_chars(std::string_view text) {
  std::vector<std::string> chars;
  chars.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80           ? 1
                         : (lead >> 5) == 0x6  ? 2
                         : (lead >> 4) == 0xe  ? 3
                         : (lead >> 3) == 0x1e ? 4
                                               : 1;
    if (i + length > text.size()) length = 1;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) length = 1;
    }
    chars.emplace_back(text.substr(i, length));
    i += length;
  }
  return chars;
}

}  // namespace ironbench::serve::chat
