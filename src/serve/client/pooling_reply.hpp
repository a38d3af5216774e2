// What the reply to an embeddings, rerank or score request must be, checked: one result per
// input, each index once and within range, every number finite, and for embeddings every
// vector of one dimension (within the reply, and across the point: pooling_dimension). A
// reply that is not so fails its request as "malformed", with the reason; an {"error": ...}
// body with status 200 fails as "server_error".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "serve/measures/serving_metrics.hpp"
#include "serve/workload/endpoint_kinds.hpp"

namespace ironbench::serve {

struct pooling_reply {
  std::string error_class;  ///< empty: the reply is right; else malformed or server_error
  std::string error;        ///< why
  /// usage.prompt_tokens, else usage.total_tokens (vLLM's rerank reports only that; a pooling
  /// request has no output tokens); absent without usage (TEI).
  std::optional<std::int64_t> prompt_tokens;
  std::size_t results = 0;    ///< vectors or scores in the reply
  std::size_t dimension = 0;  ///< embeddings: the vectors' length
};

/// Reads and checks `body`, the reply to a request of `kind` with `inputs` texts or documents.
/// Embeddings: {"data": [{"index", "embedding": [numbers] or base64 of float32s}], "usage"};
/// rerank: {"results": [{"index", "relevance_score"}]} or TEI's [{"index", "score"}] (either
/// form is read for both rerank kinds); score: {"data": [{"index", "score"}]}.
[[nodiscard]] pooling_reply read_pooling_reply(endpoint_kind kind, std::string_view body, std::size_t inputs);

/// The embedding dimension of a point: the first reply's, which every later one must match.
class pooling_dimension {
 public:
  /// Empty when `dimension` agrees with the point's so far (or there is none: not embeddings).
  [[nodiscard]] std::string check(std::size_t dimension);
  [[nodiscard]] std::size_t value() const { return dimension_; }

 private:
  std::size_t dimension_ = 0;
};

/// Completes `record` (sent at record.sent_s, its reply ended at `end_s`, both from the point's
/// origin) from a 200 reply's `body`: success with the server's prompt tokens, or a failure of
/// the reply's class. Its latency is e2el_s; it has no TTFT, ITL or output tokens.
void finish_pooling_record(request_record& record, endpoint_kind kind, std::string_view body, std::size_t inputs,
                           double end_s, pooling_dimension& dimension);

}  // namespace ironbench::serve
