// What the events of an OpenAI-compatible streaming response say, and the timing of one
// request built from them exactly as vLLM's `bench serve` measures it:
//   TTFT = first event with non-empty `choices` - send time;
//   every later such event appends (t - previous such event) to the request's ITL list;
//   E2EL = last such event - send time;
//   output tokens = usage.completion_tokens when the server reports it.
// Every token event counts, whatever it carries (a role, reasoning, answer text, only a
// finish reason): TTFT is the first token of any kind, as in vLLM. Reasoning (a
// reasoning_content or reasoning delta, or <think>...</think> in the text) is told apart from
// the answer beside it (reasoning_split.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/client/reasoning_split.hpp"

namespace ironbench::serve {

/// The two OpenAI APIs: /v1/completions (choices[0].text) and /v1/chat/completions
/// (choices[0].delta.content).
enum class openai_api { completions, chat };

/// One "data:" payload of a stream (or a whole non-streaming body).
struct openai_chunk {
  bool done = false;         ///< the "[DONE]" sentinel
  bool malformed = false;    ///< not JSON, or JSON of an unexpected shape
  bool has_choices = false;  ///< a non-empty "choices" array: a token event
  /// The payload was not valid UTF-8: its invalid bytes were replaced by U+FFFD before it was
  /// read (the chunk is kept; the request says it had them).
  bool invalid_utf8 = false;
  std::string text;  ///< the text this chunk adds (empty for role-only chunks)
  /// The reasoning text this chunk adds: choices[0].delta (or message).reasoning_content, else
  /// .reasoning (chat only; the first of the two that is a non-empty string).
  std::string reasoning;
  reasoning_field reasoning_from = reasoning_field::none;  ///< which field `reasoning` came from
  std::string finish_reason;
  std::optional<std::int64_t> prompt_tokens;      ///< usage.prompt_tokens
  std::optional<std::int64_t> completion_tokens;  ///< usage.completion_tokens
  /// usage.completion_tokens_details.reasoning_tokens (OpenAI, OpenRouter).
  std::optional<std::int64_t> reasoning_tokens;
  std::string error;  ///< an {"error": ...} object's message
  /// serve-sim's send time of this event (CLOCK_MONOTONIC ns), when present.
  std::optional<std::int64_t> sim_sent_ns;
};

[[nodiscard]] openai_chunk parse_openai_chunk(std::string_view data, openai_api api);

/// The timing of one streamed request, fed event by event.
class request_timing {
 public:
  /// `send_time_s`: when the request was handed to the transport (after the concurrency gate).
  /// `keep_text`: whether the chunks' text is kept (text()); without it only its size and
  /// the events are counted, so a long answer costs no memory.
  explicit request_timing(double send_time_s, bool keep_text = true)
      : send_s_(send_time_s), keep_text_(keep_text), reasoning_(keep_text) {}

  /// An event arrived at `time_s` carrying `chunk`.
  void on_chunk(double time_s, const openai_chunk& chunk);

  [[nodiscard]] bool has_first_token() const { return first_s_.has_value(); }
  /// Seconds from send to the first token event.
  [[nodiscard]] double ttft_s() const;
  /// Seconds from send to the last token event.
  [[nodiscard]] double e2el_s() const;
  /// Gaps between consecutive token events (vLLM's per-request "itl").
  [[nodiscard]] const std::vector<double>& itl_s() const { return itl_s_; }
  /// The text received (empty unless kept: see the constructor).
  [[nodiscard]] const std::string& text() const { return text_; }
  /// Whether the text is kept (the constructor's keep_text).
  [[nodiscard]] bool keeps_text() const { return keep_text_; }
  /// The text, moved out (text() is empty after).
  [[nodiscard]] std::string take_text() { return std::move(text_); }
  /// Bytes of text received, kept or not.
  [[nodiscard]] std::size_t text_bytes() const { return text_bytes_; }
  /// Whether some chunk had invalid UTF-8 (replaced by U+FFFD).
  [[nodiscard]] bool had_invalid_utf8() const { return invalid_utf8_; }
  [[nodiscard]] std::optional<std::int64_t> usage_completion_tokens() const { return completion_tokens_; }
  [[nodiscard]] std::optional<std::int64_t> usage_prompt_tokens() const { return prompt_tokens_; }
  /// Token events seen (chunks with choices), as vLLM's client times them: these include a
  /// chat stream's role-only first chunk and a closing chunk with only a finish reason.
  [[nodiscard]] std::size_t token_events() const { return events_; }
  /// Chunks whose text or reasoning text was not empty: the output token count when the
  /// server sends no usage and no tokenizer is given (exact for servers that stream one token
  /// per chunk).
  [[nodiscard]] std::size_t text_events() const { return text_events_; }
  /// usage.completion_tokens_details.reasoning_tokens, when the server reported it.
  [[nodiscard]] std::optional<std::int64_t> usage_reasoning_tokens() const { return reasoning_tokens_; }
  /// The reasoning and the answer told apart; times are from the client's clock (as on_chunk's).
  /// Call finish_reasoning() at the stream's end first.
  [[nodiscard]] const reasoning_tracker& reasoning() const { return reasoning_; }
  /// The stream ended: text held back as a possible <think> tag is classified.
  void finish_reasoning() { reasoning_.finish(); }
  /// The send time given to the constructor.
  [[nodiscard]] double send_s() const { return send_s_; }
  [[nodiscard]] bool done() const { return done_; }
  /// Whether the stream said that it ended: "[DONE]", a choice's finish_reason or a usage
  /// object. A stream that stops without any of them (the connection closed cleanly after
  /// some tokens) was cut short: the request is "truncated", not completed.
  [[nodiscard]] bool saw_end() const { return done_ || finished_ || completion_tokens_.has_value(); }

 private:
  double send_s_;
  std::optional<double> first_s_;
  double last_s_ = 0;
  std::vector<double> itl_s_;
  bool keep_text_ = true;
  std::string text_;
  std::size_t text_bytes_ = 0;
  bool invalid_utf8_ = false;
  std::optional<std::int64_t> completion_tokens_, prompt_tokens_, reasoning_tokens_;
  reasoning_tracker reasoning_;
  std::size_t events_ = 0;
  std::size_t text_events_ = 0;
  bool done_ = false;
  bool finished_ = false;  ///< a finish_reason was seen
};

}  // namespace ironbench::serve
