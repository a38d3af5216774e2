// Prompts for `ironbench serve`, built the way vLLM's `bench serve` builds its datasets.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

namespace ironbench::serve {

/// What every request body carries besides the prompt.
struct body_settings {
  std::string model;
  openai_api api = openai_api::completions;
  bool stream = true;
  bool ignore_eos = false;
  json extra = json::object();  ///< merged into every body (--extra-body)
};

/// vLLM's random dataset: input and output lengths drawn uniformly from
/// [len x (1 - ratio), len x (1 + ratio)], a shared random prefix of `prefix_len` tokens.
/// Completions get token-id prompts of exactly that length; chat gets text of as many
/// one-token words (exact only for tokenizers that encode each word as one token).
struct random_dataset {
  std::int64_t input_len = 1024;
  std::int64_t output_len = 128;
  double range_ratio = 0;
  std::int64_t prefix_len = 0;
  std::int64_t vocab_size = 32000;  ///< token ids are drawn from [100, vocab_size): the tokenizer's when given
};

/// `count` requests; fewer when `stop` is set while they are built (Ctrl-C: a large point's
/// requests take seconds to build, and a user who stops the run is not kept waiting for them).
[[nodiscard]] std::vector<prepared_request> make_random_requests(const random_dataset& dataset,
                                                                 const body_settings& body, std::size_t count,
                                                                 std::uint64_t seed,
                                                                 const std::atomic<bool>* stop = nullptr);

/// A JSONL file of {"prompt": "..."} lines (vLLM's custom dataset), each sent with
/// `output_len` max tokens; prompt lengths count whitespace-separated words (approximate
/// without a tokenizer). Read line by line through core::bounded_reader (a regular file of at
/// most 1024 MiB, lines of at most 16 MiB), only as far as `count` prompts. Throws usage_error
/// naming the file and line when malformed or beyond a limit.
[[nodiscard]] std::vector<prepared_request> make_custom_requests(const std::string& path, std::int64_t output_len,
                                                                 const body_settings& body, std::size_t count);

/// vLLM's prefix-repetition dataset: `num_prefixes` random prefixes of `prefix_len` tokens;
/// every prompt is one of them (in turn) followed by `suffix_len` random tokens, so a server
/// with prefix caching sees the same prefixes again and again.
struct prefix_repetition_dataset {
  std::int64_t prefix_len = 256;
  std::int64_t suffix_len = 256;
  std::int64_t num_prefixes = 10;
  std::int64_t output_len = 128;
  std::int64_t vocab_size = 32000;
};

/// Likewise fewer than `count` when `stop` is set while they are built.
[[nodiscard]] std::vector<prepared_request> make_prefix_repetition_requests(const prefix_repetition_dataset& dataset,
                                                                            const body_settings& body,
                                                                            std::size_t count, std::uint64_t seed,
                                                                            const std::atomic<bool>* stop = nullptr);

/// vLLM's ShareGPT sampling from a ShareGPT JSON file (a list of {"conversations": [{"from",
/// "value"}, ...]}): the first turn is the prompt, the second the reference completion whose
/// length (or `fixed_output_len` when positive) becomes max_tokens; pairs with a prompt or
/// completion under 4 tokens, a prompt over 1024 or both over 2048 are left out, as vLLM does.
/// Lengths come from `tokenizer` (approximate word counts without one). Sampled in a seeded
/// shuffle; reused in order when the file has fewer pairs than `count`.
[[nodiscard]] std::vector<prepared_request> make_sharegpt_requests(const std::string& path,
                                                                   std::int64_t fixed_output_len,
                                                                   const body_settings& body, std::size_t count,
                                                                   std::uint64_t seed, const bpe_tokenizer* tokenizer);

/// A ShareGPT file's JSON (a list of {"conversations": [...]}), parsed as it is read through
/// core::bounded_reader (a regular file of at most 1024 MiB); usage_error when it cannot be
/// read, is beyond the limit or is not a list.
[[nodiscard]] json read_sharegpt_file(const std::string& path);

/// The length of `text` in tokens of `tokenizer`, or in words without one.
[[nodiscard]] std::int64_t text_length(const std::string& text, const bpe_tokenizer* tokenizer);

/// The JSON body of one request.
[[nodiscard]] std::string request_body(const body_settings& body, const json& prompt, std::int64_t max_tokens);

/// The JSON body of a chat request with these messages ([{"role", "content"}, ...]).
[[nodiscard]] std::string chat_request_body(const body_settings& body, const json& messages, std::int64_t max_tokens);

/// Adds what every body carries (stream, stream_options, ignore_eos, --extra-body) to `request`.
[[nodiscard]] std::string finish_body(const body_settings& body, json request);

}  // namespace ironbench::serve
