// What `trend` and `report --trend` share: the options that choose the runs and cases whose
// history is followed, and the detector's settings.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/option_groups.hpp"
#include "results/trend_history.hpp"

namespace ironbench::cli {

struct trend_arguments {
  std::string database;
  std::string metric;
  std::string benchmark, device;
  run_filter_arguments filter;  ///< --tag, --host, --since, --until
  std::vector<std::string> params;
  std::string min_difference = "2%";
  results::trend_options options;
};

/// Adds --benchmark, --tag, --host, --since, --until, --device, --param, --alpha,
/// --min-difference, --min-history and --window to `command` (not the metric nor --db).
void add_trend_selection(CLI::App& command, trend_arguments& a);

/// The query and the detector's options the parsed arguments ask for (usage_error when a
/// --tag, --param or --min-difference is malformed).
[[nodiscard]] results::trend_query trend_query_of(const trend_arguments& a);
[[nodiscard]] results::trend_options trend_options_of(const trend_arguments& a);

}  // namespace ironbench::cli
