// serve-sim's reasoning output (`--reasoning-tokens N --reasoning-style S`): the first N output
// tokens of every response (all of them when max_tokens is smaller) are reasoning, sent in the
// form S takes on /v1/chat/completions:
//   reasoning_content: delta.reasoning_content (vLLM's reasoning parsers, DeepSeek);
//   reasoning:         delta.reasoning (newer vLLM, OpenRouter);
//   think-tags:        delta.content, token 0 being "<think>" and token N-1 "</think>" (a model
//                      served without a reasoning parser).
// /v1/completions has no reasoning fields: its text always carries the think tags. A
// non-streaming reply puts the reasoning in message.reasoning_content / .reasoning (or the tags
// in the content). Tokens keep the step model's times, so the truth is exact: the first answer
// token of a lone request comes N steps after its first token.
// `--report-reasoning-tokens` adds usage.completion_tokens_details.reasoning_tokens = N.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ironbench::serve {

enum class sim_reasoning_style { reasoning_content, reasoning, think_tags };

struct sim_reasoning_settings {
  std::int64_t tokens = 0;  ///< reasoning tokens per response (0: none)
  sim_reasoning_style style = sim_reasoning_style::reasoning_content;
  bool report_tokens = false;  ///< usage.completion_tokens_details.reasoning_tokens
};

/// "reasoning_content", "reasoning" or "think-tags"; usage_error listing them otherwise.
[[nodiscard]] sim_reasoning_style sim_reasoning_style_from_string(const std::string& name);
[[nodiscard]] const char* to_string(sim_reasoning_style style);

/// The reasoning tokens of a response of `max_tokens`: min(tokens, max_tokens).
[[nodiscard]] std::int64_t sim_reasoning_tokens(const sim_reasoning_settings& settings, std::int64_t max_tokens);

/// How token `index` of a response with `reasoning_tokens` reasoning tokens goes out.
struct sim_token_out {
  std::string text;  ///< the word, or a think tag in its place
  /// The delta (or message) field it goes in: "content", "reasoning_content" or "reasoning".
  std::string_view field = "content";
};

[[nodiscard]] sim_token_out sim_token(const sim_reasoning_settings& settings, std::int64_t reasoning_tokens,
                                      std::int64_t index, std::string word, bool chat);

}  // namespace ironbench::serve
