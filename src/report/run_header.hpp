// The few lines that say what, where and when a run measured, above every report.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace ironbench::report {

/// ("ironbench", "0.1.0 (abc123)"), ("started", ...), ("host", ...), ("environment", ...),
/// ("devices", ...), ("command", ...), and from a run of execute_plan ("schedule", how its cases
/// ran side by side and for how long), ("lost devices", those hung) and ("slow devices", those
/// slower than their peers, core/device_spread.hpp). Missing fields are left out.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> header_lines(const core::run_result& run);

/// The string at `path` inside `document` ("cpu", "model_name"), or "" when absent.
[[nodiscard]] std::string json_text(const json& document, std::initializer_list<const char*> path);

}  // namespace ironbench::report
