// What one request's reasoning was: when its first reasoning and first answer tokens came, and
// how many tokens of each it had (reasoning_metrics.hpp fills it and sums it over a point).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ironbench::serve {

struct reasoning_record {
  /// The form it came in: "reasoning_content", "reasoning", "think_tags"; "usage" when only the
  /// server's usage.completion_tokens_details.reasoning_tokens said there was reasoning (a
  /// server that hides the text). Empty: no reasoning.
  std::string style;
  std::optional<double> ttft_reasoning_s;  ///< send to the event with the first reasoning byte
  std::optional<double> ttft_answer_s;     ///< send to the event with the first answer byte
  std::int64_t reasoning_tokens = 0, answer_tokens = 0;
  /// Where the two counts came from: "usage" (reasoning_tokens reported; answer = output
  /// tokens - reasoning), "tokenizer" (--tokenizer on each part's text), "events" (token events
  /// carrying each part: exact for one token per event).
  std::string token_source;

  [[nodiscard]] bool present() const { return !style.empty(); }
};

}  // namespace ironbench::serve
