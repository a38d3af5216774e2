// The tokenizer's pre-tokenizers, as Hugging Face `tokenizers` applies them: ByteLevel (with
// or without GPT-2's regex), Split (a string or a regex, every behaviour, inverted or not),
// Metaspace (prepend_scheme always / first / never, split or not) and WhitespaceSplit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "serve/tokenizer/pcre_pattern.hpp"
#include "serve/tokenizer/text_split.hpp"

namespace ironbench::serve::tokenization {

/// GPT-2's pattern, which ByteLevel uses when use_regex is true.
inline constexpr const char* gpt2_pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// Where Metaspace puts its replacement character before a piece.
enum class prepend_scheme { always, first, never };

/// One pre-tokenizer as tokenizer.json configures it.
struct pre_tokenizer {
  enum class kind { byte_level, split, metaspace, whitespace_split } type = kind::split;
  // ByteLevel
  bool add_prefix_space = false;
  std::unique_ptr<regex> pattern;  // ByteLevel's regex (use_regex) or Split's
  // Split
  std::string literal;
  split_behavior behavior = split_behavior::isolated;
  bool invert = false;
  // Metaspace
  std::string replacement;
  prepend_scheme prepend = prepend_scheme::always;
  bool split = true;
};

/// Applies `step` to every piece of `pieces` (replaced by what it splits them into);
/// `byte_map`: byte_to_unicode(), for ByteLevel.
void pre_tokenize(const pre_tokenizer& step, const std::vector<std::string>& byte_map, std::vector<piece>& pieces);

}  // namespace ironbench::serve::tokenization
