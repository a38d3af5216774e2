// What compare and report share: turning the sides named on the command line (run ids,
// files, tag selectors, ref:NAME) into runs, opening the results database only if needed,
// and the prices of --price-per-hour.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "results/comparison.hpp"
#include "results/cost.hpp"

namespace ironbench::cli {

/// Resolves every side; `database` is --db (empty: the default database).
[[nodiscard]] std::vector<results::comparison_side> select_sides(const std::vector<std::string>& texts,
                                                                 const std::string& database);

/// Parses every --price-per-hour value.
[[nodiscard]] std::vector<results::price> parse_prices(const std::vector<std::string>& texts);

/// Writes `text` to `path` ("-" = stdout) through a temporary file and a rename; says
/// "written: PATH" on stderr. Usage error when the file cannot be written.
void write_text_output(const std::string& path, const std::string& text);

}  // namespace ironbench::cli
