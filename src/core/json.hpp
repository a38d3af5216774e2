// The JSON type of ironbench documents: key order is kept as written, so result files read
// in the order of the benchmark's axes and metrics.
#pragma once

#include <nlohmann/json.hpp>

namespace ironbench {
using json = nlohmann::ordered_json;
}  // namespace ironbench
