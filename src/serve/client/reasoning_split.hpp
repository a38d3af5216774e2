// The reasoning and the answer of one streamed response, told apart event by event.
//
// A reasoning model's output reaches a client in one of three forms:
//   - `delta.reasoning_content` beside `delta.content` (vLLM's reasoning parsers, DeepSeek);
//   - `delta.reasoning` beside `delta.content` (newer vLLM, OpenRouter);
//   - `<think>...</think>` inside the content text (a model served without a reasoning parser).
// The first two arrive already split; the third is split here: content that starts (after
// whitespace) with `<think>` is reasoning up to and including `</think>`, and content that
// shows `</think>` without an opening tag (templates that put `<think>` in the prompt, as
// DeepSeek-R1's does) was reasoning from its start up to the tag: what was counted as answer
// until then is counted again as reasoning. After the reasoning closes, the tags are text.
// Tags split across events ("<thi" + "nk>") are recognised; bytes held back while they might
// start a tag keep the time of the event they arrived in.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve {

/// Where a chunk's reasoning text came from.
enum class reasoning_field { none, reasoning_content, reasoning };

/// "reasoning_content", "reasoning" or "think_tags" (the form a response carried reasoning in).
[[nodiscard]] const char* reasoning_style_name(reasoning_field field);

class reasoning_tracker {
 public:
  /// `keep_text`: keep the reasoning fields' text (for a tokenizer's count); the content's
  /// split is kept as an offset into the content either way.
  explicit reasoning_tracker(bool keep_text = false) : keep_text_(keep_text) {}

  /// A token event at `time_s` with `reasoning` (a reasoning field's text, from `field`) and
  /// `content` (the content or completion text).
  void on_event(double time_s, std::string_view reasoning, reasoning_field field, std::string_view content);
  /// The stream ended: bytes held back as a possible tag are classified where they stand.
  void finish();

  /// Whether any reasoning was seen (a field or a think region).
  [[nodiscard]] bool saw_reasoning() const { return first_reasoning_s_.has_value(); }
  /// The time of the event that carried the first reasoning / answer byte.
  [[nodiscard]] std::optional<double> first_reasoning_s() const { return first_reasoning_s_; }
  [[nodiscard]] std::optional<double> first_answer_s() const { return first_answer_s_; }
  /// Token events that carried reasoning / answer bytes (an event with both counts in each).
  [[nodiscard]] std::size_t reasoning_events() const { return reasoning_events_; }
  [[nodiscard]] std::size_t answer_events() const { return answer_events_; }
  /// "reasoning_content", "reasoning", "think_tags", or "" without reasoning.
  [[nodiscard]] const std::string& style() const { return style_; }
  /// The reasoning fields' text (empty unless kept).
  [[nodiscard]] const std::string& field_text() const { return field_text_; }
  /// Bytes at the start of the content that are reasoning (a think region with its tags).
  [[nodiscard]] std::size_t content_reasoning_bytes() const { return content_reasoning_bytes_; }

 private:
  enum class phase { start, thinking, tentative_answer, answer };
  // Where an event's content begins in pending_.
  struct mark {
    std::size_t offset;
    double time_s;
    std::size_t event;  // the event's serial number (1: the first)
  };

  void classify(std::size_t bytes, bool reasoning);  // the next `bytes` of pending_
  void reclassify_answer_as_reasoning();
  void process();
  void count_event(std::size_t event, bool reasoning);
  void note_style(const char* style);

  bool keep_text_;
  phase phase_ = phase::start;
  std::string pending_;  // content not yet classified
  std::vector<mark> marks_;
  std::size_t consumed_ = 0;  // content bytes classified
  std::size_t content_reasoning_bytes_ = 0;
  std::optional<double> first_reasoning_s_, first_answer_s_;
  std::size_t reasoning_events_ = 0, answer_events_ = 0;
  std::size_t events_ = 0;                                        // serial of the latest event
  std::size_t last_reasoning_event_ = 0, last_answer_event_ = 0;  // the latest counted of each
  bool fields_seen_ = false;  // a reasoning field came: content is not split without an opening tag
  std::string style_;
  std::string field_text_;
};

}  // namespace ironbench::serve
