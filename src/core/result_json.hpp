// JSON form of the result model (docs/results-format.md describes the layout).
// Writers emit every field; readers ignore fields they do not know and reject documents
// that are not ironbench results with a one-line error.
#pragma once

#include <filesystem>

#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::core {

[[nodiscard]] json to_json(const measurement_settings& settings);
[[nodiscard]] json to_json(const case_result& result);
/// A case's parameters as a JSON object (numbers stay numbers), without the rest of the case.
[[nodiscard]] json to_json(const parameter_set& params);
[[nodiscard]] json to_json(const run_result& run);

/// Throws ironbench::error("<context>: ...") when `document` is not an ironbench run.
[[nodiscard]] run_result run_from_json(const json& document, const std::string& context = "result");

/// Reads a result file. Throws usage_error when the file is missing, unreadable, not JSON or
/// not an ironbench result (the message names the file).
[[nodiscard]] run_result read_run_file(const std::filesystem::path& path);

}  // namespace ironbench::core
