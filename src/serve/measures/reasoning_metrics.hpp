// A reasoning model's two first tokens and two token counts, per request and per point.
//
// Per request (reasoning_record): the time to the first reasoning token and to the first answer
// token (from the send, like TTFT), and the reasoning and answer token counts from the best
// source there is: the server's usage.completion_tokens_details.reasoning_tokens, else the
// tokenizer on each part's text, else the token events that carried each part.
// Per point: the statistics of both times and of the answer's own TPOT, the token totals, and
// which tokens TPOT and ITL count (every output token, reasoning and answer: vLLM's definitions
// are unchanged).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/client/openai_stream.hpp"
#include "serve/measures/reasoning_record.hpp"
#include "serve/measures/serving_metrics.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

namespace ironbench::serve {

/// The reasoning of a completed request whose stream `timing` has ended (finish_reasoning()
/// called; its text not yet taken). `output_tokens`: the request's output length as counted
/// for the metrics. `tokenizer` (may be null) counts the parts when usage gives no split.
[[nodiscard]] reasoning_record measure_reasoning(const request_timing& timing, std::int64_t output_tokens,
                                                 const bpe_tokenizer* tokenizer);

/// The tokenizer's count of a response's whole output: its reasoning fields' text and its
/// content (kept text only).
[[nodiscard]] std::int64_t tokenizer_output_tokens(const request_timing& timing, const bpe_tokenizer& tokenizer);

/// The point's reasoning keys (empty object when no completed request had reasoning):
/// requests_with_reasoning, total_reasoning_tokens, total_answer_tokens (answer tokens of every
/// completed request; a request without reasoning is all answer), reasoning_styles and
/// reasoning_token_sources (requests per form and per count source),
/// {mean,median,std}_{ttft_reasoning,ttft_answer,answer_tpot}_ms with the selected percentiles
/// of each, and tpot_itl_tokens ("reasoning+answer": what TPOT and ITL count).
[[nodiscard]] json reasoning_metrics(const std::vector<request_record>& records, const metric_selection& selection);

/// Console lines for reasoning_metrics' keys in `metrics` (empty when there are none).
[[nodiscard]] std::string reasoning_summary(const json& metrics, const metric_selection& selection);

}  // namespace ironbench::serve
