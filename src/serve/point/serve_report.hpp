// How a `serve` point is reported: vLLM's console summary and result JSON (same keys, so
// dashboards that read vLLM files read these), the per-request records, and the sweep's
// best point under an inter-token-latency limit.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// vLLM's "Serving Benchmark Result" block, plus the client's own timing honesty.
void write_serving_summary(std::ostream& out, const json& metrics, const load_result& load,
                           const metric_selection& selection);

/// What the server's /metrics said during the point (server_metrics_summary.hpp): a block of
/// the common metrics, or one line saying why there are none.
void write_server_metrics_summary(std::ostream& out, const json& summary);

/// One request per line: schedule, send, lateness, outcome, lengths, TTFT, E2EL, ITL gaps.
[[nodiscard]] std::string request_records_jsonl(const std::vector<request_record>& records);

/// vLLM's detailed arrays (input_lens, output_lens, ttfts, itls, generated_texts, errors),
/// in seconds as vLLM writes them.
[[nodiscard]] json detailed_arrays(const std::vector<request_record>& records);

/// The index of the point with the highest output throughput whose `statistic` ("median",
/// "p99" ...) of `metric` ("itl" or "tpot") is at most `limit_ms`; -1 when none qualifies.
[[nodiscard]] int best_point_under_limit(const std::vector<json>& points, const std::string& metric,
                                         const std::string& statistic, double limit_ms);

}  // namespace ironbench::serve
