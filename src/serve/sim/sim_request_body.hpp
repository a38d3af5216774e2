// The fields of a /v1/completions or /v1/chat/completions body that serve-sim acts on, read
// with their types checked: a client that sends `"stream": 1` or `"max_tokens": "3"` gets an
// HTTP 400 naming the field (as vLLM's validation does), never a server that stops.
#pragma once

#include <cstdint>
#include <string>

#include "core/json.hpp"

namespace ironbench::serve {

/// What serve-sim does with a request.
struct sim_request_body {
  bool stream = false;         ///< "stream": true or false (null: false)
  bool include_usage = false;  ///< "stream_options": {"include_usage": true or false (null: false)}
  /// "max_completion_tokens", else "max_tokens" (absent: 16, vLLM's completions default);
  /// an integer of at least 1.
  std::int64_t max_tokens = 16;
  std::string model;  ///< "model" (absent or null: empty, the base model)
};

/// A request body read, or why it cannot be (`error` not empty: one line naming the field).
struct sim_body_reading {
  sim_request_body request;
  std::string error;
};

/// Reads `body` (a JSON object). Never throws: a field of the wrong type or out of range is
/// an `error` naming it ("stream must be true or false, not 1").
[[nodiscard]] sim_body_reading read_sim_body(const json& body);

}  // namespace ironbench::serve
