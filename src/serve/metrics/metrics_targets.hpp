// --metrics-url's values: a plain URL, or ROLE=URL for one part of a disaggregated deployment
// (prefill=http://p:8000/metrics, decode=http://d:8000/metrics), whose scrapes are then
// reported per role.
#pragma once

#include <string>
#include <vector>

namespace ironbench::serve {

/// Splits every "ROLE=URL" of `urls` into the URL (left in `urls`) and its role (returned, in
/// the same order; all empty when no URL has a role). A role is letters, digits, '_' and '-'.
/// usage_error when some URLs have a role and others not, or a role is empty.
[[nodiscard]] std::vector<std::string> split_metrics_roles(std::vector<std::string>& urls);

}  // namespace ironbench::serve
