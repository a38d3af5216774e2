// What `ironbench compare` and `ironbench report` accept as a run: a stored run id ("12"), an
// ironbench result file, a published baseline ("ref:NAME"), or tag selectors
// ("env=vm" or "env=vm,gpu=mi300x": every stored run carrying all of them, pooled).
#pragma once

#include <functional>
#include <string>

#include "results/comparison.hpp"

namespace ironbench::results {

class results_store;

/// Resolves `text` into a labelled side. `store` is called only when the database is needed.
/// Throws usage_error (one line) when nothing matches or the file is not an ironbench result.
[[nodiscard]] comparison_side select_side(const std::string& text, const std::function<results_store&()>& store);

}  // namespace ironbench::results
