// The few lines that say what, where and when a run measured, above every report.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace ironbench::report {

/// ("ironbench", "0.1.0 (abc123)"), ("started", ...), ("host", ...), ("environment", ...),
/// ("devices", ...), ("command", ...). Missing fingerprint fields are left out.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> header_lines(const core::run_result& run);

/// The string at `path` inside `document` ("cpu", "model_name"), or "" when absent.
[[nodiscard]] std::string json_text(const json& document, std::initializer_list<const char*> path);

}  // namespace ironbench::report
