// Parsing and printing of quantities given on the command line and shown in tables.
//
// Sizes use binary prefixes, as nccl-tests and BabelStream do for message and array sizes:
// K = 2^10, M = 2^20, G = 2^30, T = 2^40 (also accepted as Ki/KiB, KB is refused as ambiguous).
// Rates use SI prefixes (GB/s = 1e9 bytes per second); docs/metrics.md lists every unit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ironbench {

/// Parses a non-negative integer with an optional binary suffix: "4096", "1M", "8G", "64KiB".
/// Throws usage_error naming `what` for anything else (negative, empty, overflow, junk).
[[nodiscard]] std::int64_t parse_size(std::string_view text, std::string_view what);

/// Parses a signed integer (no suffix allowed besides the binary size suffixes).
[[nodiscard]] std::int64_t parse_integer(std::string_view text, std::string_view what);

/// Parses a finite floating-point number. Throws usage_error naming `what` otherwise.
[[nodiscard]] double parse_number(std::string_view text, std::string_view what);

/// Parses a duration in seconds: "0.5", "500ms", "2s", "1m", "12h". Throws usage_error otherwise.
[[nodiscard]] double parse_duration_s(std::string_view text, std::string_view what);

/// "1 KiB", "1.5 MiB", "8 GiB", "512 B" (binary prefixes, at most 3 significant digits).
[[nodiscard]] std::string format_bytes(double bytes);

/// Compact size label for axis values: "4K", "1M", "8G" when exact, else the plain number.
[[nodiscard]] std::string format_size_label(std::int64_t bytes);

/// Human time: "850 ns", "12.3 us", "4.56 ms", "1.23 s".
[[nodiscard]] std::string format_seconds(double seconds);

/// A number with 3-4 significant digits, no exponent for everyday magnitudes.
[[nodiscard]] std::string format_number(double value);

}  // namespace ironbench
