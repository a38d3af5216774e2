// The self-contained HTML report of one run or of a comparison: an environment table, the
// comparison table, cost, the cases, and charts drawn by Chart.js (compiled into ironbench)
// from the results embedded in the page. It opens offline, from a file, in any browser.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "results/comparison.hpp"
#include "results/cost.hpp"

namespace ironbench::report {

struct html_report_input {
  std::string title;
  std::vector<results::comparison_side> sides;    ///< one side: a run report
  std::optional<results::comparison> comparison;  ///< set with two sides or more
  std::vector<results::cost_row> cost;            ///< empty without --price-per-hour
  /// An experiment's report (experiment/experiment_report.hpp): {"name", "hash", "recipe",
  /// "matrix": [variable names], "points": [{"index", "label", "values": {VAR: VALUE},
  /// "outcome", "run", "cases", "reason", "log_tail"}]}. Adds the points and failures and
  /// charts of each metric against each matrix variable; null otherwise.
  json experiment = nullptr;
};

void write_html_report(const html_report_input& input, std::ostream& out);

/// The results the page's script draws from: per side its label, runs (time, host, tags),
/// cases (benchmark, device, params, metrics, units, status) and telemetry series.
[[nodiscard]] json html_page_data(const html_report_input& input);

}  // namespace ironbench::report
