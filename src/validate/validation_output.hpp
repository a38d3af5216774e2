// A validation as people read it: a table of the checks with what was measured, what was
// expected and from where, the ratio, the verdict and the rule, then the summary verdict.
#pragma once

#include <ostream>

#include "validate/validation.hpp"

namespace ironbench::validate {

/// The table as aligned text and the summary line.
void write_validation_console(const validation_report& report, std::ostream& out);

/// The same as Markdown, with the expectations' sources listed below the table.
void write_validation_markdown(const validation_report& report, std::ostream& out);

}  // namespace ironbench::validate
