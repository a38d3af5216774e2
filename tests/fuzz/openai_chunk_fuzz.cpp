// libFuzzer target of the reader of one streamed OpenAI chunk (parse_openai_chunk in
// src/serve/client/openai_stream.hpp) and of the request timing it feeds. The input is read as a
// /v1/completions and as a /v1/chat/completions chunk. Aborts when a chunk contradicts itself
// (the [DONE] sentinel with content, an error with text or choices, text without choices, a
// malformed chunk with usage) or when the timing's counts disagree with the chunks fed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "serve/client/openai_stream.hpp"

namespace {

void check_openai_chunk(const ironbench::serve::openai_chunk& chunk) {
  if (chunk.done && (chunk.malformed || chunk.has_choices || !chunk.text.empty() || !chunk.error.empty())) std::abort();
  if (!chunk.error.empty() && (chunk.has_choices || !chunk.text.empty())) std::abort();
  if (!chunk.text.empty() && !chunk.has_choices) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto api : {ironbench::serve::openai_api::completions, ironbench::serve::openai_api::chat}) {
    const auto chunk = ironbench::serve::parse_openai_chunk(text, api);
    check_openai_chunk(chunk);
    // Text comes from the input; each invalid byte may become U+FFFD (3 bytes), nothing more.
    if (chunk.text.size() > 3 * size) std::abort();

    // The chunk three times, one second apart, as one request's events.
    ironbench::serve::request_timing timing(0.0);
    for (int i = 1; i <= 3; ++i) timing.on_chunk(i, chunk);
    const std::size_t expected_events = chunk.has_choices ? 3 : 0;
    if (timing.token_events() != expected_events || timing.text_events() > timing.token_events()) std::abort();
    if (timing.has_first_token() != chunk.has_choices) std::abort();
    if (timing.has_first_token() && (timing.itl_s().size() != 2 || timing.ttft_s() != 1.0 || timing.e2el_s() != 3.0))
      std::abort();
    if (timing.text().size() != 3 * chunk.text.size()) std::abort();
    if (timing.done() != chunk.done) std::abort();
    if (chunk.completion_tokens != timing.usage_completion_tokens() && chunk.completion_tokens.has_value())
      std::abort();
  }
  return 0;
}
