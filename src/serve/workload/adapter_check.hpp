// Before a sweep with --lora-modules: every adapter must be one the server serves. By model
// name (vLLM, SGLang), GET /v1/models must list it. A server that answers any model name with
// its base model (llama.cpp's server, llama-cpp-python's) would otherwise give each "adapter"
// the base model's figures, and the per-adapter comparison would compare nothing. By
// llama.cpp's "lora" field, GET /lora-adapters must list it, and gives its id; --lora-by auto
// takes the field when that GET answers a list.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "serve/client/load_generator.hpp"
#include "serve/workload/lora_adapters.hpp"

namespace ironbench::serve {

/// The adapters of `selection` that the OpenAI model list `models_reply` (the body of
/// GET /v1/models) does not list, in the order given; nullopt when the body is not a model list.
[[nodiscard]] std::optional<std::vector<std::string>> adapters_not_listed(const std::string& models_reply,
                                                                          const lora_selection& selection);

/// The server's id of each adapter of `selection` (in order; -1: not listed) in llama.cpp's
/// GET /lora-adapters reply [{"id": 0, "path": "dir/sql.gguf", "scale": 1}, ...]: an adapter
/// is named by its id ("0"), its path, its file name or its file name without ".gguf".
/// nullopt when the body is not such a list.
[[nodiscard]] std::optional<std::vector<int>> adapter_ids(const std::string& lora_adapters_reply,
                                                          const lora_selection& selection);

/// Settles how requests name their adapters and checks that every server serves them.
/// lora_route::automatic becomes lora_field when the first base URL answers GET /lora-adapters
/// with a list, else model_name. lora_field: GETs /lora-adapters of each base URL and sets each
/// adapter's server_id; throws ironbench::error (exit 1) in one line naming the URL, the
/// adapters it lacks and what it lists (also when it gives no list, or two servers give one
/// adapter different ids). model_name: GETs /v1/models of each base URL (with its headers and
/// TLS settings) and throws the same way when one is missing; a server that gives no model
/// list (no reply, a status other than 200, another body) is not judged: the returned line
/// says so, for the progress output ("" when every server listed every adapter).
[[nodiscard]] std::string check_adapters_listed(const load_settings& load, lora_selection& selection);

}  // namespace ironbench::serve
