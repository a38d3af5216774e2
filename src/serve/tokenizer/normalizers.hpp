// The tokenizer's normalizers, as Hugging Face `tokenizers` applies them: Prepend, Replace (a
// string or a regex) and Precompiled (SentencePiece's compiled normalization rules).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/tokenizer/pcre_pattern.hpp"

namespace ironbench::serve::tokenization {

/// One step of normalization, applied to the whole text before it is pre-tokenized.
class normalizer {
 public:
  virtual ~normalizer() = default;
  virtual void apply(std::string& text) const = 0;
};

/// Prepend: `prefix` before any text that is not empty.
class prepend_normalizer : public normalizer {
 public:
  explicit prepend_normalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void apply(std::string& text) const override;

 private:
  std::string prefix_;
};

/// Replace: every match of a literal (`pattern` null) or of `pattern` becomes `content`.
class replace_normalizer : public normalizer {
 public:
  replace_normalizer(std::string literal, std::unique_ptr<regex> pattern, std::string content)
      : literal_(std::move(literal)), pattern_(std::move(pattern)), content_(std::move(content)) {}
  void apply(std::string& text) const override;

 private:
  std::string literal_;
  std::unique_ptr<regex> pattern_;
  std::string content_;
};

/// SentencePiece's compiled normalization rules (`precompiled_charsmap`): a little-endian u32
/// giving the size of a Darts double-array trie of u32 units, the trie, then the normalized
/// strings, each ending in a NUL, which the trie's values point into.
class precompiled_normalizer : public normalizer {
 public:
  /// `blob`: the decoded charsmap; one that is not a compiled trie is a usage_error naming `path`.
  precompiled_normalizer(const std::string& blob, const std::string& path);
  void apply(std::string& text) const override;

 private:
  // What the shortest key of the trie that prefixes `chunk` maps to (Darts' commonPrefixSearch,
  // first result); nullopt where no key does.
  [[nodiscard]] std::optional<std::string_view> transform(std::string_view chunk) const;

  std::vector<std::uint32_t> trie_;
  std::string normalized_;
  grapheme_splitter graphemes_;
};

}  // namespace ironbench::serve::tokenization
