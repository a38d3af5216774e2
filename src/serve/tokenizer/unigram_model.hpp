// The Unigram model of a tokenizer.json (T5, XLM-RoBERTa), as Hugging Face `tokenizers`
// applies it: Viterbi over the pieces' scores (models/unigram/model.rs `encode_optimized`),
// the unknown token for what no piece covers (runs of it fused), `byte_fallback`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ironbench::serve::tokenization {

/// Unigram pieces, their scores, and an index for prefix search.
struct unigram_model {
  std::vector<std::string> pieces;
  std::vector<double> scores;
  std::unordered_map<std::string, std::int64_t> ids;  // the last of equal pieces, as Hugging Face keeps
  std::vector<std::uint32_t> sorted;                  // piece indices in byte order, for prefix search
  double min_score = 0;
  std::optional<std::int64_t> unk;
  bool byte_fallback = false;

  /// Builds the prefix index (`sorted`) once the pieces are read.
  void index();

  /// Appends the ids of `text` (one pre-tokenized piece) to `out`; text that no piece covers
  /// without an unknown token is an error.
  void encode(const std::string& text, std::vector<std::int64_t>& out) const;

 private:
  // Calls f(length, id) for each piece that prefixes `text`, shortest first.
  template <typename F>
  void prefixes(std::string_view text, F&& f) const {
    auto lo = sorted.begin(), hi = sorted.end();
    for (std::size_t depth = 0; depth < text.size() && lo != hi; ++depth) {
      const int c = static_cast<unsigned char>(text[depth]);
      const auto key = [&](std::uint32_t i) {
        return pieces[i].size() > depth ? static_cast<int>(static_cast<unsigned char>(pieces[i][depth])) : -1;
      };
      lo = std::lower_bound(lo, hi, c, [&](std::uint32_t i, int value) { return key(i) < value; });
      hi = std::upper_bound(lo, hi, c, [&](int value, std::uint32_t i) { return value < key(i); });
      if (lo != hi && pieces[*lo].size() == depth + 1) f(depth + 1, ids.at(pieces[*lo]));
    }
  }
};

}  // namespace ironbench::serve::tokenization
