// The endpoints `ironbench serve` can load, one table: each row names a kind of request, the
// --backend name that selects it, the --endpoint paths that imply it, and whether it streams
// generated tokens (completions, chat: TTFT, TPOT, ITL) or answers each request with one
// reply (embeddings, rerank, score: latency and input tokens only). The CLI's choices, help
// text and dispatch come from this table; a new kind of request is one row here plus its
// body builder (pooling_requests.hpp) and reply check (pooling_reply.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "serve/client/openai_stream.hpp"

namespace ironbench::serve {

enum class endpoint_kind {
  completions,  ///< /v1/completions: a prompt, streamed tokens
  chat,         ///< /v1/chat/completions: messages, streamed tokens
  embeddings,   ///< /v1/embeddings: {"input": [texts]} -> one vector per text
  rerank,       ///< vLLM's /v1/rerank (Jina/Cohere form): {"query", "documents"} -> {"results": [...]}
  tei_rerank,   ///< Text Embeddings Inference's /rerank: {"query", "texts"} -> [{"index", "score"}]
  score,        ///< vLLM's /score: {"text_1": query, "text_2": [documents]} -> {"data": [...]}
};

struct endpoint_entry {
  endpoint_kind kind;
  std::string_view backend;  ///< the --backend name
  std::string_view path;     ///< the default --endpoint
  /// Other paths that select this row when --backend is not given (comma-separated).
  std::string_view also;
  std::string_view detail;  ///< shown in --backend's help
  bool generates = true;    ///< streams generated tokens; false: one reply per request (pooling)
};

/// The table, in the order --backend's help lists it.
[[nodiscard]] const std::vector<endpoint_entry>& serving_endpoints();

/// The row --backend `backend` names ("auto": the row whose path or other paths is `path`,
/// or, for an unknown path, chat when it holds "chat" and completions otherwise, as before).
/// usage_error listing the backends for an unknown name.
[[nodiscard]] const endpoint_entry& endpoint_for(const std::string& backend, const std::string& path);

/// --backend's help: every row's name and detail.
[[nodiscard]] std::string backend_help();

/// Whether requests of `kind` get one reply each, without generated tokens.
[[nodiscard]] bool is_pooling(endpoint_kind kind);

/// The OpenAI API a generating kind's stream is read as (chat for chat, else completions).
[[nodiscard]] openai_api api_of(endpoint_kind kind);

/// The row of `kind`.
[[nodiscard]] const endpoint_entry& endpoint_of(endpoint_kind kind);

}  // namespace ironbench::serve
