// `ironbench report --trend METRIC`: one self-contained HTML file with a chart per case of the
// metric over the runs, the flagged changes marked, and a table of them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "results/trend_history.hpp"

namespace ironbench::report {

/// Writes the page: Chart.js and the style sheet of the HTML report inlined, nothing loaded.
void write_trend_html(const std::vector<results::trend_series>& series, const std::string& title, std::ostream& out);

}  // namespace ironbench::report
