// Files compiled into ironbench for the HTML report (see cmake/embed_text.cmake): Chart.js
// from the system's libjs-chart.js package, and the report's own script and style sheet.
#pragma once

#include <string_view>

namespace ironbench::report {

[[nodiscard]] std::string_view chart_js();    ///< Chart.js, minified, with its license header
[[nodiscard]] std::string_view report_js();   ///< src/report/html/report.js
[[nodiscard]] std::string_view report_css();  ///< src/report/html/report.css

}  // namespace ironbench::report
