// A comparison of runs as text: one table per benchmark (the value of every side, then per
// compared side the speedup, the p value, the interval and the verdict), the geometric means,
// and the cases only some sides have. Console and Markdown share the layout.
#pragma once

#include <ostream>

#include "results/comparison.hpp"

namespace ironbench::report {

void write_comparison_console(const results::comparison& comparison, std::ostream& out);
void write_comparison_markdown(const results::comparison& comparison, std::ostream& out);

/// "1.234", "12.3", "1234": three significant digits at least, no exponent for usual values.
[[nodiscard]] std::string format_value(double value);

}  // namespace ironbench::report
