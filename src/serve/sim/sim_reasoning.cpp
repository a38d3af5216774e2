#include "serve/sim/sim_reasoning.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::serve {

sim_reasoning_style sim_reasoning_style_from_string(const std::string& name) {
  if (name == "reasoning_content") return sim_reasoning_style::reasoning_content;
  if (name == "reasoning") return sim_reasoning_style::reasoning;
  if (name == "think-tags") return sim_reasoning_style::think_tags;
  throw usage_error(fmt::format("unknown --reasoning-style '{}' (reasoning_content, reasoning, think-tags)", name));
}

const char* to_string(sim_reasoning_style style) {
  switch (style) {
    case sim_reasoning_style::reasoning_content: return "reasoning_content";
    case sim_reasoning_style::reasoning: return "reasoning";
    case sim_reasoning_style::think_tags: break;
  }
  return "think-tags";
}

std::int64_t sim_reasoning_tokens(const sim_reasoning_settings& settings, std::int64_t max_tokens) {
  return std::clamp<std::int64_t>(settings.tokens, 0, std::max<std::int64_t>(0, max_tokens));
}

sim_token_out sim_token(const sim_reasoning_settings& settings, std::int64_t reasoning_tokens, std::int64_t index,
                        std::string word, bool chat) {
  sim_token_out out;
  out.text = std::move(word);
  if (index >= reasoning_tokens) return out;
  if (chat && settings.style != sim_reasoning_style::think_tags) {
    out.field = settings.style == sim_reasoning_style::reasoning ? "reasoning" : "reasoning_content";
    return out;
  }
  if (index == 0) {
    out.text = "<think>";
  } else if (index == reasoning_tokens - 1) {
    out.text = "</think>";
  }
  return out;
}

}  // namespace ironbench::serve
