// serve-sim's prefix cache: prompt tokens seen before within a window are not prefilled again.
// The rule (docs/serving-metrics.md, serve-sim, "Prefix cache"), after vLLM's automatic prefix
// caching: a prompt is cut into blocks of `block_tokens` tokens; a block is identified by its
// own tokens and every token before it (a chain, so a block only matches at the same place
// behind the same prefix); a request's cached tokens are those of its leading whole blocks
// whose identity arrived in an earlier request at most `window_s` seconds ago, and never the
// whole prompt (the last token is always prefilled, as a server must to produce logits).
// Looking a prompt up records its blocks as seen at that moment. At most `max_blocks`
// identities are kept (the oldest forgotten first), so memory is bounded however long it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/json.hpp"

namespace ironbench::serve {

struct sim_prefix_cache_settings {
  double window_s = 0;             ///< how long a block stays cached after it was last seen (0: no cache)
  std::int64_t block_tokens = 16;  ///< tokens per block (vLLM's default block size)
  std::size_t max_blocks = std::size_t{1} << 20;
};

class sim_prefix_cache {
 public:
  explicit sim_prefix_cache(const sim_prefix_cache_settings& settings) : settings_(settings) {}

  [[nodiscard]] bool enabled() const { return settings_.window_s > 0; }
  /// The tokens of `tokens` (one identity per prompt token) found in the cache at `now_s`
  /// (0 when disabled); every whole block of the prompt is then recorded as seen at `now_s`.
  /// `salt` starts every chain: prompts of different models (LoRA adapters) share nothing.
  [[nodiscard]] std::int64_t lookup_and_insert(const std::vector<std::uint64_t>& tokens, std::uint64_t salt,
                                               double now_s);
  [[nodiscard]] std::size_t blocks() const { return last_seen_.size(); }

 private:
  void expire(double now_s);

  sim_prefix_cache_settings settings_;
  std::unordered_map<std::uint64_t, double> last_seen_;  ///< block identity -> when last seen
  std::deque<std::pair<std::uint64_t, double>> order_;   ///< (identity, when seen), oldest first
};

/// The prompt of a /v1/completions or /v1/chat/completions body as serve-sim counts its tokens
/// (sim_prompt_tokens): a token-id prompt's ids, else the whitespace-separated words of the
/// prompt or of the messages' string contents, each as a 64-bit identity.
[[nodiscard]] std::vector<std::uint64_t> sim_prompt_token_ids(const json& body);

}  // namespace ironbench::serve
