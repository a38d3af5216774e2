// Before a sweep with --lora-modules: every adapter must be one the server lists in
// GET /v1/models, as vLLM lists the LoRA adapters it serves. A server that answers any model
// name with its base model (llama.cpp's server, llama-cpp-python's) would otherwise give each
// "adapter" the base model's figures, and the per-adapter comparison would compare nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "serve/load_generator.hpp"
#include "serve/lora_adapters.hpp"

namespace ironbench::serve {

/// The adapters of `selection` that the OpenAI model list `models_reply` (the body of
/// GET /v1/models) does not list, in the order given; nullopt when the body is not a model list.
[[nodiscard]] std::optional<std::vector<std::string>> adapters_not_listed(const std::string& models_reply,
                                                                          const lora_selection& selection);

/// GETs /v1/models of each of `load`'s base URLs (with its headers and TLS settings) and throws
/// ironbench::error (exit 1), in one line naming the URL, the adapters it does not list and
/// what it lists, when one is missing. A server that gives no model list (no reply, a status
/// other than 200, another body) is not judged: the returned line says so, for the progress
/// output ("" when every server listed every adapter).
[[nodiscard]] std::string check_adapters_listed(const load_settings& load, const lora_selection& selection);

}  // namespace ironbench::serve
