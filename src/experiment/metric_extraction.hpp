// The numbers a command step printed or wrote, read by the step's metric rules: a regex's
// named groups, a JSON pointer into a file, "performance: VALUE UNIT" lines, or a CSV column.
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"
#include "experiment/experiment_plan.hpp"

namespace ironbench::experiment {

/// What the rules found.
struct extracted_metrics {
  std::vector<core::metric> metrics;
  std::vector<std::string> missing;  ///< one line per rule that found nothing, saying what it looked for
};

/// `file` as a step reads it: itself when absolute or `workdir` is empty, else below `workdir`.
[[nodiscard]] std::string path_in(const std::string& workdir, const std::string& file);

/// Applies `rules` to `log` (the step's output) and to files relative to `workdir`. A regex
/// rule takes its last match: each named group is a metric named after the group (the group
/// "value" takes the rule's name); performance takes the last "performance: VALUE UNIT" line;
/// csv takes the column's last row.
[[nodiscard]] extracted_metrics extract_metrics(const std::vector<planned_metric>& rules, const std::string& log,
                                                const std::string& workdir);

}  // namespace ironbench::experiment
