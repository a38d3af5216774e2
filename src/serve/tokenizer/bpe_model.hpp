// The BPE model of a tokenizer.json, as Hugging Face `tokenizers` applies it: merges by rank
// (models/bpe/model.rs `merge_word`, word.rs `merge_all`, without dropout), `ignore_merges`,
// `byte_fallback` to <0xXX> tokens and `fuse_unk`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ironbench::serve::tokenization {

/// A hash of a pair of token ids, for the merges.
struct pair_hash {
  std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& p) const {
    return std::hash<std::int64_t>()(p.first) * 1000003 ^ std::hash<std::int64_t>()(p.second);
  }
};

/// A BPE vocabulary and its merges.
struct bpe_model {
  std::unordered_map<std::string, std::int64_t> vocab;
  std::unordered_map<std::pair<std::int64_t, std::int64_t>, std::pair<std::size_t, std::int64_t>, pair_hash>
      merges;  // pair of ids -> rank, id of the merged token
  std::optional<std::int64_t> unk;
  std::vector<std::int64_t> byte_tokens;  // <0xXX> by byte, -1 where missing; empty without byte_fallback
  bool fuse_unk = false;
  bool ignore_merges = false;

  /// Appends the ids of `word` (one pre-tokenized piece) to `out`.
  void encode(const std::string& word, std::vector<std::int64_t>& out) const;

 private:
  struct symbol {
    std::int64_t id;
    std::ptrdiff_t prev, next;
    bool removed;
  };
};

}  // namespace ironbench::serve::tokenization
