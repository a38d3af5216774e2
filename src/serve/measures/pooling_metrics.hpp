// The metrics of a point of embeddings, rerank or score requests: one reply per request, so
// no TTFT, TPOT or ITL (reporting them as zeros would say something false). Per point:
// requests/s, input tokens/s (the server's usage.prompt_tokens where it reports them, else
// the client's count), texts or documents per second, latency (E2EL) statistics and
// failures by class (docs/serving-metrics.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/measures/serving_metrics.hpp"
#include "serve/workload/endpoint_kinds.hpp"

namespace ironbench::serve {

/// duration, completed, failed, inputs_per_request, total_input_tokens,
/// input_tokens_from_usage (completed requests whose count is the server's), request_throughput,
/// input_throughput and total_token_throughput (both input tokens/s, the latter under vLLM's
/// name), inputs_throughput (texts or documents/s), {mean,median,std}_e2el_ms and the selected
/// percentiles of e2el (always, whatever --percentile-metrics says), max_concurrent_requests,
/// errors_by_class, and embedding_dimension for embeddings.
[[nodiscard]] json pooling_metrics(const std::vector<request_record>& records, double duration_s,
                                   const metric_selection& selection, std::int64_t inputs_per_request,
                                   std::size_t embedding_dimension);

/// On a schedule: schedule_latency_metrics without the TTFT keys (E2EL and the delay only).
[[nodiscard]] json pooling_schedule_metrics(const std::vector<request_record>& records,
                                            const metric_selection& selection);

/// The console block of a pooling point and the client's timing honesty.
void write_pooling_summary(std::ostream& out, const json& metrics, const load_result& load,
                           const metric_selection& selection);

/// The case metrics a pooling point adds to the headline ones: input_throughput,
/// inputs_throughput, median and p99 E2EL.
[[nodiscard]] std::vector<core::metric> pooling_case_metrics(const json& metrics);

/// Marks vLLM's result object of a pooling point: its backend, the endpoint and how input tokens
/// were counted; the per-endpoint breakdown loses its TTFT (there is none).
void describe_pooling_point(json& vllm, endpoint_kind kind, const std::string& endpoint);

}  // namespace ironbench::serve
