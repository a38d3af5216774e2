// Whether a server's usage.completion_tokens can be the length of the response it came with.
// A server that reports -5 or 10^18 tokens must not turn into negative lengths and absurd
// throughput under a VALID verdict: such a request is flagged, its length is the client's own
// count, and the point's verdict says how many there were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ironbench::serve {

/// What a response's reported length is checked against.
struct usage_evidence {
  std::optional<std::int64_t> completion_tokens;  ///< usage.completion_tokens (none: nothing to check)
  std::int64_t max_tokens = 0;                    ///< what the request asked for at most (0: unknown)
  std::size_t text_events = 0;                    ///< token events with text, each at least one token
};

/// Tokens above max_tokens still accepted: max(16, 10 % of max_tokens) (a server may count a
/// stop token or a template's tokens beyond what it was asked for).
[[nodiscard]] std::int64_t usage_margin(std::int64_t max_tokens);

/// Why the reported count cannot be right (negative; above max_tokens + usage_margin; fewer
/// tokens than the events that carried text), or empty when it is plausible or absent.
[[nodiscard]] std::string implausible_usage(const usage_evidence& evidence);

}  // namespace ironbench::serve
