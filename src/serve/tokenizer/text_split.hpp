// Splitting text as Hugging Face's NormalizedString::split does: matches and the gaps between
// them, kept, dropped or merged by a split behaviour; the pieces of text that pass through the
// pre-tokenizers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serve/tokenizer/utf8_text.hpp"

namespace ironbench::serve::tokenization {

/// A match or a gap between matches ({begin, end} byte offsets).
struct span {
  std::size_t begin, end;
  bool match;
};

/// What a split does with its matches (Hugging Face's SplitDelimiterBehavior).
enum class split_behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

/// {begin, end} byte offsets of matches, left to right.
using byte_ranges = std::vector<std::pair<std::size_t, std::size_t>>;

/// Matches and the gaps between them, in order, as Pattern::find_matches gives them.
std::vector<span> spans_of(std::string_view text, const byte_ranges& matches);

/// Every occurrence of `literal` in `text`, left to right, not overlapping (none when empty).
byte_ranges literal_matches(std::string_view text, std::string_view literal);

/// Each character for which `is_delimiter` holds is a match of its own.
template <typename F>
byte_ranges char_matches(std::string_view text, F&& is_delimiter) {
  byte_ranges out;
  for (std::size_t i = 0; i < text.size();) {
    const auto n = char_length(text, i);
    if (is_delimiter(text.substr(i, n))) out.emplace_back(i, i + n);
    i += n;
  }
  return out;
}

/// The ranges to keep of `spans` under `behavior` (Removed drops the matches).
byte_ranges apply_behavior(const std::vector<span>& spans, split_behavior behavior);

/// A stretch of text on its way through the pre-tokenizers; `at_start`: it begins where the
/// whole text begins (Metaspace's prepend_scheme "first" prepends only there).
struct piece {
  std::string text;
  bool at_start = false;
};

/// Splits `p` at `matches` (inverted: the gaps are the matches) under `behavior`, appending the
/// non-empty pieces to `out`.
void split_piece(const piece& p, const byte_ranges& matches, split_behavior behavior, bool invert,
                 std::vector<piece>& out);

}  // namespace ironbench::serve::tokenization
