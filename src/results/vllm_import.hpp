// Results of vLLM's serving benchmark (`vllm bench serve --save-result`, and the older
// benchmarks/benchmark_serving.py), read from the JSON it saves, as cases shaped like
// ironbench's own `serve` cases (whose --save-result files have the same layout).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "results/import_consistency.hpp"

namespace ironbench::results {

/// One saved benchmark point (one result object).
struct vllm_result {
  std::string backend;   ///< "vllm", "openai", "openai-chat", ...
  std::string model_id;  ///< the served model as the benchmark named it
  std::string tokenizer_id;
  std::string date;                  ///< "20250217-104118"
  std::int64_t num_prompts = 0;      ///< requests sent (num_prompts, else completed + failed)
  std::string request_rate;          ///< "inf", or the rate (req/s) formatted with {:g}
  std::int64_t max_concurrency = 0;  ///< 0 when unlimited (null)
  std::optional<double> burstiness;
  std::optional<double> duration_s;
  std::optional<std::int64_t> completed;
  std::optional<std::int64_t> failed;  ///< the "failed" key, else num_prompts - completed
  /// Every numeric metric of the object by its vLLM name: request_throughput (req/s),
  /// output_throughput and total_token_throughput (tok/s), request_goodput, and the latency
  /// statistics mean_/median_/std_/pNN_ of ttft/tpot/itl/e2el (ms). Absent or null keys are
  /// not here.
  std::map<std::string, double> values;
  std::size_t requests_detailed = 0;  ///< entries of the per-request arrays (--save-detailed), 0 without
  json original;                      ///< the object as read
  std::size_t index = 0;              ///< position in the file: 1-based object (or JSONL line) number
};

/// Parses a file holding one result object, a JSON array of them, or JSON Lines (one object
/// per line). NaN and Infinity, which Python writes for empty statistics, read as absent.
/// Throws usage_error naming `source` when the text is not JSON, or an object is not a vLLM
/// serving result (no request_throughput, output_throughput or latency statistics; no
/// num_prompts or completed) or holds a value of the wrong type.
[[nodiscard]] std::vector<vllm_result> parse_vllm_results(const std::string& text, const std::string& source);

/// How far a throughput may be from what the result's totals imply (output_throughput from
/// total_output_tokens / duration, total_token_throughput from input and output tokens /
/// duration, request_throughput from completed / duration) before its case is invalid: vLLM
/// writes each as that quotient, unrounded.
inline constexpr agreement vllm_throughput_agreement{0.01, 1e-9};

/// How far a latency may pass the bound its result's other numbers set (the duration, the
/// E2EL, the concurrency x the duration) before its case is invalid: 1 % and 0.01 ms, for
/// what printing and summing round.
inline constexpr agreement vllm_latency_agreement{0.01, 0.01};

/// One case per result, as ironbench's serve cases: benchmark "serve", device the model
/// (else the backend); parameters max_concurrency (0: unlimited), request_rate ("inf" or
/// req/s), num_prompts; metrics request_throughput, output_throughput,
/// total_token_throughput, median_ttft_ms, median_tpot_ms, median_itl_ms, mean_e2el_ms,
/// failed (requests), then the other latency statistics present (ms), request_goodput,
/// duration (s) and completed. A metric the file lacks is left out, never written as 0.
/// notes["result"] holds the original object; no timing (the per-request arrays stay there).
/// A result where no request completed is a failed case; one whose throughputs contradict
/// its totals and duration (vllm_throughput_agreement), whose percentiles of a latency
/// decrease (p99 below the median), or whose latencies contradict each other or the duration
/// (vllm_latency_agreement: a duration of 0 with requests completed; a mean, median or
/// percentile of a latency beyond the duration; a TTFT statistic above the same E2EL one;
/// mean_tpot_ms - std_tpot_ms x sqrt(completed - 1) above (mean_e2el_ms - mean_ttft_ms) x
/// completed / (total_output_tokens - completed); mean_e2el_ms x completed above the
/// concurrency (max_concurrent_requests, else max_concurrency) x the duration) is invalid with
/// the contradiction as its reason.
[[nodiscard]] std::vector<core::case_result> vllm_cases(const std::vector<vllm_result>& results,
                                                        const std::string& source);

}  // namespace ironbench::results
