// Numbers in other tools' output read strictly (the whole field, finite), so that a damaged file is
// reported instead of read as a plausible number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.hpp"

namespace ironbench::results {

/// The number `text` holds when all of it is one finite decimal number ("12", "-3.5",
/// "1.2e+05"); nullopt otherwise.
[[nodiscard]] std::optional<double> parse_number(std::string_view text);

/// The unsigned integer `text` holds when all of it is decimal digits; nullopt otherwise.
[[nodiscard]] std::optional<std::uint64_t> parse_unsigned(std::string_view text);

/// The signed integer `text` holds ("-1", "7"); nullopt otherwise.
[[nodiscard]] std::optional<std::int64_t> parse_integer(std::string_view text);

/// `text` as an error message quotes it: whole when short, else its first `max` bytes (cut
/// at a UTF-8 character boundary) and "..." with the total length, so that a message about a
/// 100,000-character line stays readable.
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t max = 40);

/// The last component of a path ("dir/all_reduce_perf.txt" -> "all_reduce_perf.txt").
[[nodiscard]] std::string file_name_of(const std::string& path);

}  // namespace ironbench::results
