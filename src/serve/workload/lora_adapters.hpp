// Several LoRA adapters behind one server (`ironbench serve --lora-modules a,b,c`): each
// request names one adapter, and each point reports every adapter's metrics beside the totals.
// A request names its adapter (--lora-by) as its model, as vLLM and SGLang serve an adapter
// under its --lora-modules name, or in llama.cpp's per-request field
// "lora": [{"id": N, "scale": 1.0}] (llama-server takes no adapter as a model name: it answers
// any name with its base model), the id from its GET /lora-adapters.
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
#include "serve/client/load_generator.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// How a request names its adapter (--lora-by).
enum class lora_route {
  automatic,   ///< the "lora" field when the server answers GET /lora-adapters with a list, else the model
  model_name,  ///< "model": the adapter's name (vLLM, SGLang)
  lora_field,  ///< "lora": [{"id": N, "scale": 1.0}] (llama.cpp's server), "model" left as --model
};

struct lora_adapter {
  std::string name;
  double weight = 1;
  int server_id = -1;  ///< lora_field: the server's id of the adapter (GET /lora-adapters)
};

struct lora_selection {
  std::vector<lora_adapter> adapters;  ///< empty: no adapters (the --model for every request)
  bool weighted = false;               ///< a weight was given: seeded draws instead of turns
  lora_route route = lora_route::automatic;
  [[nodiscard]] bool enabled() const { return !adapters.empty(); }
};

/// Parses "a,b,c" or "a:3,b:1" (a name without a weight weighs 1). usage_error naming
/// --lora-modules for an empty or repeated name or a weight that is not a positive number.
[[nodiscard]] lora_selection parse_lora_modules(const std::string& text);

/// Sets selection.route from --lora-by's text (auto, model, lora-field). Without the adapter
/// check (`checked` false: no GET before the run) auto means model, and lora-field takes the
/// adapters by their ids ("0,1"), which it sets as each one's server_id. usage_error for
/// another text, or lora-field unchecked with a name that is not an id.
void set_lora_route(lora_selection& selection, const std::string& text, bool checked);

/// The adapter (index into selection.adapters) of each of `units` requests or conversations,
/// in order: i % adapters in turns; weighted draws from `seed` otherwise.
[[nodiscard]] std::vector<std::size_t> assign_adapters(std::size_t units, const lora_selection& selection,
                                                       std::uint64_t seed);

/// `body` (a JSON object's text) with its "model" set to `model`.
[[nodiscard]] std::string body_with_model(const std::string& body, const std::string& model);

/// `body` (a JSON object's text) with its "lora" set to [{"id": id, "scale": 1.0}] (the server's
/// other adapters then have scale 0 for the request).
[[nodiscard]] std::string body_with_lora(const std::string& body, int id);

/// Names an adapter in every request (and in a conversation's later turns, when they are made),
/// as its model or, with lora_route::lora_field, in its "lora" field by the adapter's
/// server_id, and records it in the request's `adapter`. Nothing when not enabled.
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
