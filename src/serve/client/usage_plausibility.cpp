#include "serve/client/usage_plausibility.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ironbench::serve {

std::int64_t usage_margin(std::int64_t max_tokens) { return std::max<std::int64_t>(16, max_tokens / 10); }

std::string implausible_usage(const usage_evidence& e) {
  if (!e.completion_tokens) return {};
  const std::int64_t reported = *e.completion_tokens;
  if (reported < 0) return fmt::format("usage.completion_tokens {} is negative", reported);
  if (e.max_tokens > 0 && reported - e.max_tokens > usage_margin(e.max_tokens)) {
    return fmt::format("usage.completion_tokens {} is above max_tokens {} (+{} allowed)", reported, e.max_tokens,
                       usage_margin(e.max_tokens));
  }
  if (static_cast<std::uint64_t>(reported) < e.text_events) {
    return fmt::format("usage.completion_tokens {} is less than the {} token events with text received", reported,
                       e.text_events);
  }
  return {};
}

}  // namespace ironbench::serve
