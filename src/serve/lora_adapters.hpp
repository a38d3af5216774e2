// Several LoRA adapters behind one server (`ironbench serve --lora-modules a,b,c`): each
// request names one adapter as its model, as vLLM serves a LoRA adapter under its
// --lora-modules name, and each point reports every adapter's metrics beside the totals.
//
// The adapters take turns (round robin over the requests, a conversation's turns all going to
// its first turn's adapter), or with weights ("a:3,b:1") each request draws its adapter with
// those odds from the run's --seed (so two runs with one seed send the same requests to the
// same adapters).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/load_generator.hpp"
#include "serve/serving_metrics.hpp"

namespace ironbench::serve {

struct lora_adapter {
  std::string name;
  double weight = 1;
};

struct lora_selection {
  std::vector<lora_adapter> adapters;  ///< empty: no adapters (the --model for every request)
  bool weighted = false;               ///< a weight was given: seeded draws instead of turns
  [[nodiscard]] bool enabled() const { return !adapters.empty(); }
};

/// Parses "a,b,c" or "a:3,b:1" (a name without a weight weighs 1). usage_error naming
/// --lora-modules for an empty or repeated name or a weight that is not a positive number.
[[nodiscard]] lora_selection parse_lora_modules(const std::string& text);

/// The adapter (index into selection.adapters) of each of `units` requests or conversations,
/// in order: i % adapters in turns; weighted draws from `seed` otherwise.
[[nodiscard]] std::vector<std::size_t> assign_adapters(std::size_t units, const lora_selection& selection,
                                                       std::uint64_t seed);

/// `body` (a JSON object's text) with its "model" set to `model`.
[[nodiscard]] std::string body_with_model(const std::string& body, const std::string& model);

/// Names an adapter as the model of every request (and of a conversation's later turns, when
/// they are made) and records it in the request's `adapter`. Nothing when not enabled.
void apply_lora_adapters(std::vector<prepared_request>& requests, const lora_selection& selection, std::uint64_t seed);

/// Per adapter (in the order given): requests, completed, failed, request_throughput,
/// output_throughput, total_output_tokens, {mean,median,p99}_{ttft,tpot}_ms, mean_itl_ms,
/// errors_by_class and first_error (the first failed request's class and message, when any).
/// `duration_s` is the point's (every adapter shares it).
[[nodiscard]] json adapter_metrics(const std::vector<request_record>& records, double duration_s,
                                   const lora_selection& selection);

/// One console line per adapter of adapter_metrics' object; a failing adapter's line names the
/// first error (a server that refuses the name: HTTP 404, "The model `x` does not exist").
[[nodiscard]] std::string adapter_summary(const json& per_adapter);

}  // namespace ironbench::serve
