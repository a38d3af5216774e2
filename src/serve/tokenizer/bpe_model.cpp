#include "serve/tokenizer/bpe_model.hpp"

#include <algorithm>
#include <queue>

#include "serve/tokenizer/utf8_text.hpp"

namespace ironbench::serve::tokenization {

// models/bpe/model.rs `merge_word`, then word.rs `merge_all` (without dropout).
void bpe_model::encode(const std::string& word, std::vector<std::int64_t>& out) const {
  if (ignore_merges) {
    if (const auto it = vocab.find(word); it != vocab.end()) {
      out.push_back(it->second);
      return;
    }
  }
  std::vector<std::int64_t> ids;
  std::optional<std::int64_t> pending_unk;
  for (std::size_t i = 0; i < word.size();) {
    const auto n = char_length(word, i);
    const auto it = vocab.find(word.substr(i, n));
    i += n;
    if (it != vocab.end()) {
      if (pending_unk) ids.push_back(*std::exchange(pending_unk, std::nullopt));
      ids.push_back(it->second);
      continue;
    }
    if (!byte_tokens.empty() &&
        std::all_of(word.begin() + static_cast<std::ptrdiff_t>(i - n), word.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](char b) { return byte_tokens[static_cast<unsigned char>(b)] >= 0; })) {
      // As Hugging Face does, a pending unknown token is not flushed before byte tokens.
      for (std::size_t k = i - n; k < i; ++k) ids.push_back(byte_tokens[static_cast<unsigned char>(word[k])]);
      continue;
    }
    if (!unk) continue;  // no unknown token: the character is dropped, as Hugging Face drops it
    if (pending_unk && !fuse_unk) ids.push_back(*pending_unk);
    pending_unk = unk;
  }
  if (pending_unk) ids.push_back(*pending_unk);

  std::vector<symbol> symbols(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    symbols[i] = {ids[i], static_cast<std::ptrdiff_t>(i) - 1,
                  i + 1 < ids.size() ? static_cast<std::ptrdiff_t>(i) + 1 : -1, false};
  }
  struct candidate {
    std::size_t rank, pos;
    std::int64_t new_id;
    bool operator>(const candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<candidate, std::vector<candidate>, std::greater<>> queue;
  const auto push = [&](std::size_t pos) {
    if (symbols[pos].next < 0) return;
    const auto it = merges.find({symbols[pos].id, symbols[static_cast<std::size_t>(symbols[pos].next)].id});
    if (it != merges.end()) queue.push({it->second.first, pos, it->second.second});
  };
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) push(i);
  while (!queue.empty()) {
    const auto top = queue.top();
    queue.pop();
    auto& current = symbols[top.pos];
    if (current.removed || current.next < 0) continue;
    const auto next_pos = static_cast<std::size_t>(current.next);
    const auto it = merges.find({current.id, symbols[next_pos].id});
    if (it == merges.end() || it->second.second != top.new_id) continue;  // an expired entry
    current.id = top.new_id;
    current.next = symbols[next_pos].next;
    symbols[next_pos].removed = true;
    if (current.next >= 0) symbols[static_cast<std::size_t>(current.next)].prev = static_cast<std::ptrdiff_t>(top.pos);
    if (current.prev >= 0) push(static_cast<std::size_t>(current.prev));
    push(top.pos);
  }
  for (const auto& s : symbols)
    if (!s.removed) out.push_back(s.id);
}

}  // namespace ironbench::serve::tokenization
