#include "serve/client/utf8_repair.hpp"

namespace ironbench::serve {
namespace {

constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

// The length of the valid UTF-8 sequence at text[i], or 0 when none starts there; `maximal`
// gets the length of the invalid prefix that one U+FFFD replaces (at least 1).
std::size_t utf8_sequence_at(std::string_view text, std::size_t i, std::size_t& maximal) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  maximal = 1;
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  for (std::size_t k = 1; k < length; ++k) {
    if (i + k >= text.size()) return 0;
    const unsigned char next = byte(i + k);
    const bool ok = k == 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xBF;
    if (!ok) return 0;
    maximal = k + 1;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  std::size_t maximal = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto length = utf8_sequence_at(text, i, maximal);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string repaired_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t maximal = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto length = utf8_sequence_at(text, i, maximal);
    if (length == 0) {
      out.append(replacement_character);
      i += maximal;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace ironbench::serve
