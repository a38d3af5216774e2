#include "serve/tokenizer/unigram_model.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "serve/tokenizer/utf8_text.hpp"

namespace ironbench::serve::tokenization {

void unigram_model::index() {
  sorted.resize(pieces.size());
  for (std::uint32_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
  std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) { return pieces[a] < pieces[b]; });
}

// models/unigram/model.rs `encode_optimized` (Viterbi), then `tokenize` (byte fallback).
void unigram_model::encode(const std::string& text, std::vector<std::int64_t>& out) const {
  constexpr double unk_penalty = 10.0;
  const double unk_score = min_score - unk_penalty;
  struct node {
    std::int64_t id = 0;
    double score = 0;
    std::optional<std::size_t> starts_at;
  };
  std::vector<node> best(text.size() + 1);
  for (std::size_t at = 0; at < text.size();) {
    const double here = best[at].score;
    const auto length = char_length(text, at);
    bool has_single = false;
    prefixes(std::string_view(text).substr(at), [&](std::size_t n, std::int64_t id) {
      auto& target = best[at + n];
      const double candidate = scores[static_cast<std::size_t>(id)] + here;
      if (!target.starts_at || candidate > target.score) {
        target = {id, candidate, at};
      }
      if (n == length) has_single = true;
    });
    if (!has_single) {
      auto& target = best[at + length];
      const double candidate = unk_score + here;
      if (!target.starts_at || candidate > target.score) {
        if (!unk)
          throw error(fmt::format("tokenizer: no piece for '{}' and no unknown token", text.substr(at, length)));
        target = {*unk, candidate, at};
      }
    }
    at += length;
  }
  // Back from the end; runs of the unknown token are one (fuse_unk, always on for Unigram).
  std::vector<std::pair<std::size_t, std::size_t>> path;  // {begin, end} of each piece, reversed
  std::vector<bool> unknown;
  for (std::size_t end = text.size(); end > 0;) {
    const auto& n = best[end];
    if (!n.starts_at) break;  // not reached: every character ends a node
    const auto begin = *n.starts_at;
    const bool is_unk = unk && n.id == *unk;
    if (is_unk && !unknown.empty() && unknown.back()) {
      path.back().first = begin;
    } else {
      path.emplace_back(begin, end);
      unknown.push_back(is_unk);
    }
    end = begin;
  }
  for (std::size_t k = path.size(); k-- > 0;) {
    const auto [begin, end] = path[k];
    const auto token = text.substr(begin, end - begin);
    if (const auto it = ids.find(token); it != ids.end()) {
      out.push_back(it->second);
      continue;
    }
    if (byte_fallback) {
      std::vector<std::int64_t> bytes;
      for (const char b : token) {
        const auto it = ids.find(fmt::format("<0x{:02X}>", static_cast<unsigned char>(b)));
        if (it == ids.end()) break;
        bytes.push_back(it->second);
      }
      if (bytes.size() == token.size()) {
        out.insert(out.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (!unk) throw error(fmt::format("tokenizer: no piece for '{}' and no unknown token", token));
    out.push_back(*unk);
  }
}

}  // namespace ironbench::serve::tokenization
