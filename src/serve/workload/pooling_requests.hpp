// The bodies of requests that get one reply each, without generated tokens: embeddings
// (a batch of texts), rerank and score (a query and a batch of documents). Texts are random
// one-token words (serve/common/text_units.hpp), their lengths drawn as the random dataset draws
// prompt lengths, deterministic from the seed.
#pragma once

#include <cstdint>
#include <vector>

#include "serve/client/load_generator.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"
#include "serve/workload/datasets.hpp"
#include "serve/workload/endpoint_kinds.hpp"

namespace ironbench::serve {

/// --inputs-per-request (a sweep axis: each value is a set of points) and --rerank-query-len.
struct pooling_settings {
  std::vector<std::int64_t> inputs_per_request = {1};  ///< texts (embeddings) or documents (rerank, score)
  std::int64_t query_len = 16;                         ///< words of the query of rerank and score
};

/// The shape of one point's requests.
struct pooling_shape {
  endpoint_kind kind = endpoint_kind::embeddings;
  std::int64_t inputs = 1;      ///< texts or documents per request
  std::int64_t query_len = 16;  ///< rerank, score: words of the query
  random_dataset lengths;       ///< input_len and range_ratio: the words of each text or document
};

/// `count` requests of `shape`. prompt_len is the client's count of the input tokens, as the
/// server charges them: the texts' tokens for embeddings, and for rerank and score, which
/// score each (query, document) pair, the sum over documents of query + document tokens.
/// Tokens are `tokenizer`'s count, or words without one. items = shape.inputs.
/// usage_error for a shape with no inputs or bad lengths.
[[nodiscard]] std::vector<prepared_request> make_pooling_requests(const pooling_shape& shape, const body_settings& body,
                                                                  std::size_t count, std::uint64_t seed,
                                                                  const bpe_tokenizer* tokenizer);

/// Parses --inputs-per-request ("1,8,32"); usage_error unless each is a whole number >= 1.
[[nodiscard]] std::vector<std::int64_t> parse_inputs_per_request(const std::string& text);

}  // namespace ironbench::serve
