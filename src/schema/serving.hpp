// The `serve` case as ironbench writes it: benchmark "serve", parameters max_concurrency,
// request_rate and num_prompts, vLLM's headline metrics and the keys of vLLM bench serve's
// result files. Shared by the measured case (serve/sweep/serve_sweep) and cases imported from
// vLLM's result files (results/vllm_import), so that both are built alike.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace ironbench::schema {

/// The benchmark name of every serving case.
inline constexpr const char* serving_benchmark = "serve";

/// Keys of a vLLM bench serve result object that ironbench writes (serve --save-result) and reads (import).
namespace vllm_key {
inline constexpr const char* date = "date";
inline constexpr const char* backend = "backend";
inline constexpr const char* model_id = "model_id";
inline constexpr const char* tokenizer_id = "tokenizer_id";
inline constexpr const char* num_prompts = "num_prompts";
inline constexpr const char* request_rate = "request_rate";
inline constexpr const char* burstiness = "burstiness";
inline constexpr const char* max_concurrency = "max_concurrency";
inline constexpr const char* duration = "duration";
inline constexpr const char* completed = "completed";
inline constexpr const char* failed = "failed";
inline constexpr const char* request_throughput = "request_throughput";
inline constexpr const char* output_throughput = "output_throughput";
inline constexpr const char* total_token_throughput = "total_token_throughput";
inline constexpr const char* request_goodput = "request_goodput";
inline constexpr const char* max_output_tokens_per_s = "max_output_tokens_per_s";
inline constexpr const char* max_concurrent_requests = "max_concurrent_requests";
inline constexpr const char* total_input_tokens = "total_input_tokens";
inline constexpr const char* total_output_tokens = "total_output_tokens";
/// ironbench serve's own block: whether the client kept its schedule (valid, invalid_reason).
inline constexpr const char* client = "client";
inline constexpr const char* client_valid = "valid";
inline constexpr const char* client_invalid_reason = "invalid_reason";
}  // namespace vllm_key

/// The latencies that have statistics (mean_/median_/std_/pNN_{name}_ms): ttft, tpot, itl, e2el.
[[nodiscard]] const std::vector<std::string>& latency_metrics();

/// The headline metrics of every serve case, in their order: request_throughput,
/// output_throughput, total_token_throughput, median_ttft_ms, median_tpot_ms, median_itl_ms,
/// mean_e2el_ms.
[[nodiscard]] const std::vector<std::string>& serving_headline_metrics();

/// The description of a metric taken from (or computed as) vLLM bench serve's result.
inline constexpr const char* vllm_metric_description = "as vLLM bench serve defines it";

/// The unit of a serving metric: req/s, tok/s (the token throughputs), ms (latencies).
[[nodiscard]] std::string serving_metric_unit(const std::string& name);

/// A request rate as a serve case's request_rate parameter: "inf" when unlimited, else {:g}.
[[nodiscard]] std::string request_rate_text(double rate);

/// One measured (or imported) serving point.
struct serving_point {
  std::string device;                ///< the endpoints (measured) or the model (imported)
  std::int64_t max_concurrency = 0;  ///< 0: unlimited
  std::string request_rate;          ///< request_rate_text()
  std::int64_t num_prompts = 0;
  std::map<std::string, double> values;  ///< the headline metrics at hand, by their vLLM key
  std::optional<double> failed;          ///< failed requests, when known
};

/// The serve case of `point`: benchmark "serve", parameters max_concurrency, request_rate and
/// num_prompts, then the headline metrics `point.values` holds (in their order, unitless, as
/// vLLM defines them) and "failed" (requests) when known. The names of the headline metrics
/// (and "failed") that are missing are appended to `missing` when given.
[[nodiscard]] core::case_result serving_case(const serving_point& point, std::vector<std::string>* missing = nullptr);

}  // namespace ironbench::schema
