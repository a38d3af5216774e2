// Small text helpers shared by the importers of other tools' output: splitting lines and
// fields, and numbers read strictly (the whole field, finite), so that a damaged file is
// reported instead of read as a plausible number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::results {

/// `text` without leading and trailing spaces, tabs, carriage returns and newlines.
[[nodiscard]] std::string trim(std::string_view text);

/// The lines of `text` (a trailing carriage return is removed from each).
[[nodiscard]] std::vector<std::string> split_lines(const std::string& text);

/// The fields of `line` separated by runs of spaces and tabs.
[[nodiscard]] std::vector<std::string> split_whitespace(std::string_view line);

/// The fields of `line` separated by `separator`, each trimmed.
[[nodiscard]] std::vector<std::string> split_fields(std::string_view line, char separator);

/// The number `text` holds when all of it is one finite decimal number ("12", "-3.5",
/// "1.2e+05"); nullopt otherwise.
[[nodiscard]] std::optional<double> parse_number(std::string_view text);

/// The unsigned integer `text` holds when all of it is decimal digits; nullopt otherwise.
[[nodiscard]] std::optional<std::uint64_t> parse_unsigned(std::string_view text);

/// The signed integer `text` holds ("-1", "7"); nullopt otherwise.
[[nodiscard]] std::optional<std::int64_t> parse_integer(std::string_view text);

/// The last component of a path ("dir/all_reduce_perf.txt" -> "all_reduce_perf.txt").
[[nodiscard]] std::string file_name_of(const std::string& path);

}  // namespace ironbench::results
