// Parameter axes of a benchmark (nvbench's model): a benchmark declares named axes with default
// values; the core runs the cartesian product of all axes (see sweep.hpp), except that axes
// sharing a zip group advance together (GEMM's M, N, K form shapes, not a product).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ironbench::core {

enum class axis_kind { integer, floating, string };

/// One value of an axis. Integer axes hold std::int64_t, floating axes double, string axes
/// std::string.
using axis_value = std::variant<std::int64_t, double, std::string>;

/// A named axis and the values a sweep takes by default.
struct axis {
  std::string name;
  axis_kind kind = axis_kind::integer;
  std::vector<axis_value> values;    ///< default values; empty means the user must give them
  std::string description;           ///< one line for `ironbench list`
  std::string unit;                  ///< unit of the values; "B" (bytes) shows as 1M, 8G
  std::vector<std::string> choices;  ///< string axes: the accepted values (empty: any)
  std::string zip_group;             ///< axes with the same non-empty group advance together
};

[[nodiscard]] axis integer_axis(std::string name, const std::vector<std::int64_t>& values, std::string description);
[[nodiscard]] axis size_axis(std::string name, const std::vector<std::int64_t>& values_bytes, std::string description);
[[nodiscard]] axis floating_axis(std::string name, const std::vector<double>& values, std::string description);
[[nodiscard]] axis string_axis(std::string name, std::vector<std::string> values, std::string description,
                               std::vector<std::string> choices = {});

/// The plain text of a value: "4096", "0.5", "fp32" (used in JSON, CSV and labels).
[[nodiscard]] std::string to_string(const axis_value& value);

/// The value as a person reads it in tables: size axes print "1M", "8G".
[[nodiscard]] std::string display_value(const axis& of_axis, const axis_value& value);

/// A command-line override, `--axis [BENCH:]NAME=SPEC` or `--axis [BENCH:]NAME[pow2]=SPEC`.
///
/// SPEC is a comma-separated list whose items are single values or ranges `LO:HI[:STEP]`:
/// STEP `+S` or `S` adds S (default +1), `xF` or `*F` multiplies by F. Integer values accept
/// binary suffixes (1M = 2^20). With `[pow2]` the values are exponents of two:
/// `N[pow2]=10:20:2` is 2^10, 2^12, ..., 2^20 (nvbench's `[2:10:2]` brackets are accepted).
struct axis_override {
  std::string benchmark;  ///< empty: applies to every selected benchmark that has the axis
  std::string name;
  std::string spec;
  bool pow2 = false;
  std::string text;  ///< the override as the user wrote it, for messages
};

/// Splits "[BENCH:]NAME[[pow2]]=SPEC". Throws usage_error when malformed.
[[nodiscard]] axis_override parse_axis_override(std::string_view text);

/// Expands an override's SPEC into values of `target`'s kind. Throws usage_error naming the
/// axis when a value is malformed, a range is empty or a string is not one of the choices.
[[nodiscard]] std::vector<axis_value> parse_axis_values(const axis& target, const axis_override& override_spec);

/// Most values one axis may take, so a typo cannot start a sweep of millions of cases.
inline constexpr std::size_t max_axis_values = 100000;

}  // namespace ironbench::core
