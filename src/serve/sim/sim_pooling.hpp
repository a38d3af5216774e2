// What serve-sim answers to embeddings, rerank and score requests, deterministic so that
// tests know it exactly:
//  - the embedding of a text is `dimension` numbers: component k is the top 53 bits of
//    splitmix64(FNV-1a-64(text) + k) mapped to [-1, 1), the whole vector then scaled to unit
//    length (so equal texts get equal vectors, and cosine similarity is meaningful);
//  - the relevance of a document to a query is the top 53 bits of
//    splitmix64(FNV-1a-64(query + "\n" + document)) mapped to [0, 1);
//  - prompt tokens are whitespace-separated words: an embeddings request's are the sum over its
//    texts, a rerank or score request's the sum over documents of query + document words (each
//    pair is scored as one sequence, as a cross-encoder does).
// The request is scheduled as one prefill of those tokens (sim_engine.hpp, max_tokens 1): its
// reply leaves when its first token would, at P / prefill rate + decode_base + decode_per_seq
// x running sequences for a lone request.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace ironbench::serve {

enum class sim_pooling_kind { none, embeddings, rerank, score };

/// The pooling kind serve-sim serves at `path` (none: not a pooling route).
[[nodiscard]] sim_pooling_kind sim_pooling_route(std::string_view path);

/// A pooling request read from its body.
struct sim_pooling_request {
  sim_pooling_kind kind = sim_pooling_kind::none;
  std::vector<std::string> inputs;  ///< texts (embeddings) or documents (rerank, score)
  std::string query;                ///< rerank, score
  bool tei_form = false;            ///< rerank with "texts" (TEI): the reply is a bare list
  bool base64 = false;              ///< embeddings with encoding_format "base64"
  std::int64_t prompt_tokens = 0;
  std::string error;  ///< not empty: why the body cannot be served (HTTP 400)
};

/// Reads `body`: embeddings {"input": text or [texts]}; rerank {"query", "documents" or
/// "texts"}; score {"text_1": query, "text_2": text or [texts]}.
[[nodiscard]] sim_pooling_request read_sim_pooling_request(sim_pooling_kind kind, const json& body);

[[nodiscard]] std::uint64_t sim_text_hash(std::string_view text);
[[nodiscard]] std::vector<double> sim_embedding(std::string_view text, int dimension);
[[nodiscard]] double sim_relevance(std::string_view query, std::string_view document);

/// The reply body. `drop_last`: one result fewer than asked (the malformed fault).
[[nodiscard]] std::string sim_pooling_reply(const sim_pooling_request& request, const std::string& model,
                                            std::uint64_t number, int dimension, bool drop_last);

}  // namespace ironbench::serve
