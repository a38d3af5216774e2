// serve-sim's LoRA adapters (`--lora-modules a,b,c`): served under their names beside the base
// model (--model), as vLLM serves its --lora-modules. A request naming any other model is
// refused with vLLM's HTTP 404 ("The model `x` does not exist."). Each adapter costs its
// --lora-step-cost-ms: an engine step lasts that much longer for every distinct adapter among
// the sequences it decodes (sim_engine.hpp), so a lone request on adapter k sees
// TPOT = decode base + per sequence + cost k.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::serve {

struct sim_adapter {
  std::string name;
  double step_cost_ms = 0;
};

/// --lora-modules "a,b,c" with --lora-step-cost-ms "X" (every adapter) or "X,Y,Z" (one each).
/// usage_error for an empty or repeated name, a name equal to `base_model`, a cost that is not
/// a non-negative number, or a list of costs of another length.
[[nodiscard]] std::vector<sim_adapter> parse_sim_adapters(const std::string& modules, const std::string& costs,
                                                          const std::string& base_model);

/// The model a request names: -1 for the base model (or no model given), the adapter's index,
/// or nullopt for a model the server does not serve.
[[nodiscard]] std::optional<int> sim_model_index(const std::string& requested, const std::string& base_model,
                                                 const std::vector<sim_adapter>& adapters);

/// vLLM's error body for a model it does not serve (HTTP 404).
[[nodiscard]] json sim_unknown_model_error(const std::string& requested);

}  // namespace ironbench::serve
