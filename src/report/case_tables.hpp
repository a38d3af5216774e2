// The human-readable view of a run: one table per benchmark and device, a row per case with
// its parameters, median time, noise, headline metrics and status. Metrics whose name ends in
// "_best" (rates at the fastest sample) stay in JSON and CSV only.
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"
#include "report/text_table.hpp"

namespace ironbench::report {

struct titled_table {
  std::string title;  ///< "gemm on cpu"
  text_table table;
};

[[nodiscard]] std::vector<titled_table> case_tables(const core::run_result& run);

/// A parameter value as shown in tables ("128M" for a size of 134217728 B).
[[nodiscard]] std::string display_param(const core::case_result& result, const std::string& name,
                                        const core::axis_value& value);

/// "valid", "valid, UNSTABLE (robust CV 85 %)", "INVALID: reason", "skipped: reason", "FAILED: reason".
[[nodiscard]] std::string status_cell(const core::case_result& result);

/// "12 valid, 1 invalid, 2 skipped, 0 failed", and "; 3 of the valid unstable" when some are.
[[nodiscard]] std::string status_counts(const core::run_result& run);

/// One line per unstable valid case: "stream on cpu size=128M kernel=copy: robust CV 85 % (CV 679 %) ...".
[[nodiscard]] std::vector<std::string> unstable_lines(const core::run_result& run);

}  // namespace ironbench::report
