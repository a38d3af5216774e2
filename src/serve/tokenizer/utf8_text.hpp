// The tokenizer's view of UTF-8 text: characters, code points, Unicode white space, and GPT-2's
// reversible map from bytes to printable characters (what byte-level BPE vocabularies are
// written in).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve::tokenization {

/// GPT-2's reversible map from bytes to printable code points, as UTF-8 strings (256 entries).
std::vector<std::string> byte_to_unicode();

/// The length of the UTF-8 character at `i` by its first byte, cut at the end of `s` (a stray
/// byte of text that is not UTF-8 is a character of its own).
std::size_t char_length(std::string_view s, std::size_t i);

/// The code point of the `n`-byte character at `i` (its bytes are not checked).
char32_t code_point(std::string_view s, std::size_t i, std::size_t n);

/// Rust's char::is_whitespace (Unicode's White_Space), what WhitespaceSplit splits on.
bool is_whitespace(char32_t c);

/// The length of the longest prefix of `s` that is well-formed UTF-8.
std::size_t valid_utf8_prefix(std::string_view s);

}  // namespace ironbench::serve::tokenization
