#include "serve/tokenizer/normalizers.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "serve/tokenizer/text_split.hpp"

namespace ironbench::serve::tokenization {

void prepend_normalizer::apply(std::string& text) const {
  if (!text.empty()) text.insert(0, prefix_);
}

void replace_normalizer::apply(std::string& text) const {
  const auto matches = pattern_ ? pattern_->matches(text) : literal_matches(text, literal_);
  if (matches.empty()) return;
  std::string out;
  std::size_t previous = 0;
  for (const auto& [begin, end] : matches) {
    out.append(text, previous, begin - previous);
    out += content_;
    previous = end;
  }
  out.append(text, previous, std::string::npos);
  text = std::move(out);
}

precompiled_normalizer::precompiled_normalizer(const std::string& blob, const std::string& path) {
  const auto malformed = [&] {
    return usage_error(fmt::format("{}: malformed tokenizer: the precompiled_charsmap is not a compiled trie", path));
  };
  if (blob.size() < 4) throw malformed();
  const auto u32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at + 3])) << 24;
  };
  const std::size_t trie_bytes = u32(0);
  if (trie_bytes > blob.size() - 4) throw malformed();
  trie_.reserve(trie_bytes / 4);
  for (std::size_t at = 4; at + 4 <= 4 + trie_bytes; at += 4) trie_.push_back(u32(at));
  normalized_ = blob.substr(4 + trie_bytes / 4 * 4);
}

void precompiled_normalizer::apply(std::string& text) const {
  std::string out;
  out.reserve(text.size());
  graphemes_.each(text, [&](std::string_view grapheme) {
    // As Hugging Face does (spm_precompiled): a cluster shorter than 6 bytes is replaced
    // whole by what its shortest prefix in the trie maps to; otherwise each character is.
    if (grapheme.size() < 6) {
      if (const auto norm = transform(grapheme)) {
        out += *norm;
        return;
      }
    }
    for (std::size_t i = 0; i < grapheme.size();) {
      const auto n = char_length(grapheme, i);
      const auto part = grapheme.substr(i, n);
      if (const auto norm = transform(part)) {
        out += *norm;
      } else {
        out += part;
      }
      i += n;
    }
  });
  text = std::move(out);
}

std::optional<std::string_view> precompiled_normalizer::transform(std::string_view chunk) const {
  const auto offset = [](std::uint32_t unit) -> std::size_t { return (unit >> 10) << ((unit & (1U << 9)) >> 6); };
  if (trie_.empty()) return std::nullopt;
  std::size_t node = offset(trie_[0]);
  for (const char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    node ^= c;
    if (node >= trie_.size()) return std::nullopt;
    const std::uint32_t unit = trie_[node];
    if ((unit & ((1U << 31) | 0xFF)) != c) return std::nullopt;
    node ^= offset(unit);
    if (node >= trie_.size()) return std::nullopt;
    if (((unit >> 8) & 1) != 0) {
      const std::size_t index = trie_[node] & ((1U << 31) - 1);
      if (index > normalized_.size()) return std::nullopt;
      const auto end = normalized_.find('\0', index);
      return std::string_view(normalized_).substr(index, end == std::string::npos ? end : end - index);
    }
  }
  return std::nullopt;
}

}  // namespace ironbench::serve::tokenization
