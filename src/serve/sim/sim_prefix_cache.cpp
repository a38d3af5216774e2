#include "serve/sim/sim_prefix_cache.hpp"

#include <algorithm>
#include <string_view>

#include "core/json_text.hpp"

namespace ironbench::serve {
namespace {

// FNV-1a over bytes, continuing from `h`.
std::uint64_t prefix_fnv1a(std::string_view bytes, std::uint64_t h = 14695981039346656037ULL) {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// Mixes `value` into the chain `h` (splitmix64's finaliser over the sum).
std::uint64_t prefix_chain(std::uint64_t h, std::uint64_t value) {
  std::uint64_t z = h + 0x9E3779B97F4A7C15ULL + value * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void add_prompt_words(std::string_view text, std::vector<std::uint64_t>& out) {
  std::size_t i = 0;
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (i < text.size()) {
    while (i < text.size() && space(text[i])) ++i;
    const auto start = i;
    while (i < text.size() && !space(text[i])) ++i;
    if (i > start) out.push_back(prefix_fnv1a(text.substr(start, i - start)));
  }
}

}  // namespace

void sim_prefix_cache::expire(double now_s) {
  while (!order_.empty() &&
         (order_.front().second < now_s - settings_.window_s || order_.size() > settings_.max_blocks)) {
    const auto [key, seen] = order_.front();
    order_.pop_front();
    // Only the newest sighting of a block removes it.
    if (const auto it = last_seen_.find(key); it != last_seen_.end() && it->second == seen) last_seen_.erase(it);
  }
}

std::int64_t sim_prefix_cache::lookup_and_insert(const std::vector<std::uint64_t>& tokens, std::uint64_t salt,
                                                 double now_s) {
  if (!enabled() || settings_.block_tokens < 1) return 0;
  expire(now_s);
  const auto block = static_cast<std::size_t>(settings_.block_tokens);
  std::uint64_t h = prefix_chain(0, salt);
  std::int64_t cached = 0;
  bool hitting = true;
  for (std::size_t end = block; end <= tokens.size(); end += block) {
    for (std::size_t i = end - block; i < end; ++i) h = prefix_chain(h, tokens[i]);
    const auto it = last_seen_.find(h);
    hitting = hitting && it != last_seen_.end() && it->second >= now_s - settings_.window_s;
    if (hitting) cached += settings_.block_tokens;
    last_seen_[h] = now_s;
    order_.emplace_back(h, now_s);
  }
  expire(now_s);
  // The last token is always computed: a fully cached prompt still prefills one.
  return std::min<std::int64_t>(cached, std::max<std::int64_t>(0, static_cast<std::int64_t>(tokens.size()) - 1));
}

std::vector<std::uint64_t> sim_prompt_token_ids(const json& body) {
  std::vector<std::uint64_t> out;
  if (!body.is_object()) return out;
  if (body.contains("prompt")) {
    const auto& p = body.at("prompt");
    const json* ids = &p;
    if (p.is_array() && !p.empty() && p.at(0).is_array()) ids = &p.at(0);  // a batch of id lists: the first
    if (p.is_string()) {
      add_prompt_words(p.get_ref<const std::string&>(), out);
    } else if (p.is_array() && !p.empty() && p.at(0).is_string()) {
      add_prompt_words(p.at(0).get_ref<const std::string&>(), out);
    } else if (ids->is_array()) {
      for (const auto& id : *ids) {
        out.push_back(id.is_number_integer() ? prefix_chain(1, static_cast<std::uint64_t>(id.get<std::int64_t>()))
                                             : prefix_fnv1a(core::json_text(id)));
      }
    }
    return out;
  }
  if (body.contains("messages") && body.at("messages").is_array()) {
    for (const auto& m : body.at("messages")) {
      if (m.is_object() && m.contains("content") && m.at("content").is_string()) {
        add_prompt_words(m.at("content").get_ref<const std::string&>(), out);
      }
    }
  }
  return out;
}

}  // namespace ironbench::serve
