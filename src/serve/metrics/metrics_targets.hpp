// --metrics-url's values: a plain URL, or ROLE=URL for one part of a disaggregated deployment
// (prefill=http://p:8000/metrics, decode=http://d:8000/metrics), whose scrapes are then
// reported per role.
#pragma once

#include <string>
#include <vector>

namespace ironbench::serve {

/// Splits every "ROLE=URL" of `urls` into the URL (left in `urls`) and its role (returned, in
/// the same order; all empty when no URL has a role). A role is letters, digits, '_' and '-'.
/// usage_error when some URLs have a role and others not, a role is empty, or two URLs name one
/// server's metrics (normalized_metrics_url equal: its counters would be added up twice).
[[nodiscard]] std::vector<std::string> split_metrics_roles(std::vector<std::string>& urls);

/// `url` with its scheme and host in lower case, the scheme's default port left out and a
/// trailing '/' of its path dropped (an empty path is "/"): two URLs of one endpoint compare
/// equal. A text without "://" is returned as it is.
[[nodiscard]] std::string normalized_metrics_url(const std::string& url);

}  // namespace ironbench::serve
