#include "serve/workload/endpoint_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ironbench::serve {

const std::vector<endpoint_entry>& serving_endpoints() {
  static const std::vector<endpoint_entry> table = {
      {endpoint_kind::completions, "openai", "/v1/completions", "/completions", "OpenAI completions, streamed", true},
      {endpoint_kind::chat, "openai-chat", "/v1/chat/completions", "/chat/completions",
       "OpenAI chat completions, streamed (images with --images-per-request)", true},
      {endpoint_kind::embeddings, "openai-embeddings", "/v1/embeddings", "/embeddings",
       "OpenAI embeddings: --inputs-per-request texts per request", false},
      {endpoint_kind::rerank, "vllm-rerank", "/v1/rerank", "/rerank,/v2/rerank",
       "vLLM's (Jina/Cohere) rerank: a query and --inputs-per-request documents", false},
      {endpoint_kind::tei_rerank, "tei-rerank", "/rerank", "",
       "Text Embeddings Inference's rerank ({\"query\", \"texts\"})", false},
      {endpoint_kind::score, "vllm-score", "/score", "/v1/score",
       "vLLM's score: text_1 (the query) against --inputs-per-request text_2 documents", false},
  };
  return table;
}

bool is_pooling(endpoint_kind kind) { return !endpoint_of(kind).generates; }

openai_api api_of(endpoint_kind kind) {
  return kind == endpoint_kind::chat ? openai_api::chat : openai_api::completions;
}

const endpoint_entry& endpoint_of(endpoint_kind kind) {
  const auto& table = serving_endpoints();
  return *std::find_if(table.begin(), table.end(), [&](const endpoint_entry& e) { return e.kind == kind; });
}

const endpoint_entry& endpoint_for(const std::string& backend, const std::string& path) {
  const auto& table = serving_endpoints();
  if (backend != "auto") {
    for (const auto& e : table) {
      if (e.backend == backend) return e;
    }
    std::vector<std::string> names = {"auto"};
    for (const auto& e : table) names.emplace_back(e.backend);
    throw usage_error(fmt::format("--backend '{}' is not available ({})", backend, join(names, ", ")));
  }
  // TEI's /rerank is only chosen by name: vLLM serves /rerank too, in its own form.
  for (const auto& e : table) {
    if (e.kind == endpoint_kind::tei_rerank) continue;
    if (e.path == path) return e;
    for (const auto& other : split_non_empty(std::string(e.also))) {
      if (other == path) return e;
    }
  }
  return endpoint_of(path.find("chat") != std::string::npos ? endpoint_kind::chat : endpoint_kind::completions);
}

std::string backend_help() {
  std::vector<std::string> items = {"auto (from --endpoint)"};
  for (const auto& e : serving_endpoints()) items.push_back(fmt::format("{} ({}: {})", e.backend, e.path, e.detail));
  return fmt::format("Kind of request: {}", join(items, "; "));
}

}  // namespace ironbench::serve
