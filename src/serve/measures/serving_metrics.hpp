// The serving metrics exactly as vLLM's `bench serve` defines them (docs/serving-metrics.md), under
// its result JSON keys so that existing dashboards read ironbench files.
//
// Two latencies between tokens are reported and named apart: TPOT is each request's average
// time per output token after the first, (E2EL - TTFT) / (output tokens - 1), which other
// tools call "ITL"; ITL here is vLLM's pooled list of gaps between consecutive token events
// of every request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/measures/reasoning_record.hpp"

namespace ironbench::serve {

/// One request as the client saw it. Times are seconds; send times are from the start.
struct request_record {
  bool success = false;
  std::string error_class;  ///< why it failed: http_4xx, http_429, http_5xx, connect, timeout, truncated, malformed,
                            ///< oversized ... (docs/serving-metrics.md lists them)
  std::string error;        ///< the detail (status line, server message)
  std::int64_t prompt_len = 0;
  /// Tokens counted for the metrics: usage, else the tokenizer's count, else the token events
  /// with text; the client's count when usage is implausible (usage_problem).
  std::int64_t output_len = 0;
  std::optional<std::int64_t> usage_output_tokens;      ///< what the server reported
  std::optional<std::int64_t> tokenizer_output_tokens;  ///< what the tokenizer counted in the text
  /// Why the server's usage cannot be right for this response (usage_plausibility.hpp); empty
  /// when it is plausible or absent.
  std::string usage_problem;
  bool invalid_utf8 = false;  ///< the response had invalid UTF-8, replaced by U+FFFD
  double ttft_s = 0;
  double e2el_s = 0;
  std::vector<double> itl_s;
  double scheduled_s = 0;  ///< when the schedule said to send it
  double sent_s = 0;       ///< when it was sent (after the concurrency gate)
  std::string endpoint;
  std::string generated_text;  ///< kept only for --save-detailed's texts, within --max-kept-text-bytes
  /// --save-detailed: the request completed but its text was not kept (past --max-kept-text-bytes).
  bool text_not_kept = false;
  int turn = -1;  ///< a conversation's turn (0: the first); -1 outside conversations
  /// The prompt's identity (prompt_identity.hpp), for --check-outputs and the result file's
  /// prompt_hashes; empty when not computed (or a later turn of a conversation).
  std::string prompt_hash;
  /// usage.prompt_tokens as the server reported it (prompt_len is the client's count).
  std::optional<std::int64_t> usage_prompt_tokens;
  /// An embeddings, rerank or score request: one reply, so no TTFT, ITL or output tokens.
  bool pooled = false;
  int images = 0;  ///< synthetic images sent with the prompt (prompt_len counts the text only)
  /// A reasoning model's first reasoning / answer token times and counts (reasoning_metrics.hpp).
  reasoning_record reasoning;
  /// --lora-modules: the adapter (the body's model) the request was sent to; empty without.
  std::string adapter;
};

/// Service-level objectives for goodput, in milliseconds (unset: not checked).
struct goodput_slo {
  std::optional<double> ttft_ms, tpot_ms, e2el_ms;
};

/// Parses vLLM's --goodput "ttft:200 tpot:50 e2el:2000" (usage_error when malformed).
[[nodiscard]] goodput_slo parse_goodput(const std::vector<std::string>& items);

/// The key of percentile `p` of `metric`: p99_ttft_ms, p99.9_itl_ms (vLLM's spelling).
[[nodiscard]] std::string percentile_key(double p, const std::string& metric);

/// Which statistics to report: metrics of latency_metric_table() (latency_metrics.hpp; vLLM's
/// default --percentile-metrics is ttft,tpot,itl) and percentiles (default 99).
struct metric_selection {
  std::vector<std::string> metrics = {"ttft", "tpot", "itl"};
  std::vector<double> percentiles = {99};
};

/// duration, completed, failed, total_input_tokens, total_output_tokens, request_throughput,
/// request_goodput (when an SLO is set), output_throughput, total_token_throughput,
/// {mean,median,std}_{metric}_ms (vLLM's four always, others when selected) and
/// p{P}_{metric}_ms for the selected metrics,
/// max_concurrent_requests, errors by class, implausible_usage_requests (completed requests
/// whose server-reported length was replaced by the client's count) and
/// responses_with_invalid_utf8. Means of empty lists are 0, as in vLLM.
[[nodiscard]] json serving_metrics(const std::vector<request_record>& records, double duration_s,
                                   const goodput_slo& slo, const metric_selection& selection);

/// Latency from the intended send time, for runs on a schedule (a finite request rate): a
/// request that waited for a concurrency slot or left late must not look fast. Keys
/// {mean,median,std}_{schedule_delay,ttft_from_schedule,e2el_from_schedule}_ms and the
/// selected percentiles of each; schedule delay is send time - scheduled time, and the two
/// latencies add it to TTFT and E2EL (completed requests).
[[nodiscard]] json schedule_latency_metrics(const std::vector<request_record>& records,
                                            const metric_selection& selection);

/// Multi-turn conversations, per turn (records with turn >= 0): [{"turn" (1 = the first),
/// "requests", "completed", "mean_prompt_len", "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms"}],
/// so TTFT can be seen to grow with the history; empty when no record is a turn.
[[nodiscard]] json turn_metrics(const std::vector<request_record>& records);

/// The most requests in flight at once (send to last token, or to failure).
[[nodiscard]] std::size_t max_concurrent_requests(const std::vector<request_record>& records);

}  // namespace ironbench::serve
