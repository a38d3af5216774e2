#include "core/units.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ironbench {
namespace {

[[noreturn]] void bad_value(std::string_view what, std::string_view text, std::string_view hint) {
  throw usage_error(fmt::format("invalid {} '{}': {}", what, text, hint));
}

// Returns the multiplier of a binary size suffix, or 0 when the suffix is unknown.
std::int64_t binary_multiplier(std::string_view suffix) {
  if (suffix.empty() || suffix == "B") return 1;
  static constexpr std::string_view letters = "KMGTP";
  const auto position = letters.find(static_cast<char>(std::toupper(suffix.front())));
  if (position == std::string_view::npos) return 0;
  suffix.remove_prefix(1);
  if (!(suffix.empty() || suffix == "i" || suffix == "iB")) return 0;
  return std::int64_t{1} << (10 * (position + 1));
}

}  // namespace

std::int64_t parse_integer(std::string_view text, std::string_view what) {
  const auto trimmed = trim(text);
  if (trimmed.empty()) bad_value(what, text, "empty value");
  std::int64_t value = 0;
  const auto* first = trimmed.data();
  const auto* last = trimmed.data() + trimmed.size();
  if (*first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) bad_value(what, text, "out of range");
  if (ec != std::errc() || end == first) bad_value(what, text, "not an integer");
  const auto multiplier = binary_multiplier(std::string_view(end, last - end));
  if (multiplier == 0) {
    bad_value(what, text, "expected an integer with an optional K, M, G, T suffix (powers of 1024)");
  }
  // Compared before multiplying (the product of two 64-bit values may not fit), and without
  // std::abs, which has no answer for the most negative value.
  if (value > std::numeric_limits<std::int64_t>::max() / multiplier ||
      value < std::numeric_limits<std::int64_t>::min() / multiplier) {
    bad_value(what, text, "out of range");
  }
  return value * multiplier;
}

std::int64_t parse_size(std::string_view text, std::string_view what) {
  const auto value = parse_integer(text, what);
  if (value < 0) bad_value(what, text, "must not be negative");
  return value;
}

double parse_number(std::string_view text, std::string_view what) {
  const auto trimmed = trim(text);
  if (trimmed.empty()) bad_value(what, text, "empty value");
  const std::string copy(trimmed);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(value)) {
    bad_value(what, text, "not a finite number");
  }
  return value;
}

double parse_duration_s(std::string_view text, std::string_view what) {
  auto trimmed = trim(text);
  double scale = 1.0;
  if (trimmed.ends_with("ms")) {
    scale = 1e-3;
    trimmed.remove_suffix(2);
  } else if (trimmed.ends_with("us")) {
    scale = 1e-6;
    trimmed.remove_suffix(2);
  } else if (trimmed.ends_with("s")) {
    trimmed.remove_suffix(1);
  } else if (trimmed.ends_with("m")) {
    scale = 60.0;
    trimmed.remove_suffix(1);
  } else if (trimmed.ends_with("h")) {
    scale = 3600.0;
    trimmed.remove_suffix(1);
  }
  const double value = parse_number(trimmed, what) * scale;
  if (value < 0) bad_value(what, text, "must not be negative");
  if (!std::isfinite(value)) bad_value(what, text, "out of range");  // "1e308h": finite, but not in seconds
  return value;
}

std::string format_bytes(double bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (std::abs(bytes) >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  return fmt::format("{:.3g} {}", bytes, units[unit]);
}

std::string format_size_label(std::int64_t bytes) {
  static constexpr const char* suffixes[] = {"", "K", "M", "G", "T", "P"};
  int unit = 0;
  while (bytes != 0 && bytes % 1024 == 0 && unit < 5) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", bytes, suffixes[unit]);
}

std::string format_seconds(double seconds) {
  const double magnitude = std::abs(seconds);
  if (magnitude < 1e-6) return fmt::format("{:.3g} ns", seconds * 1e9);
  if (magnitude < 1e-3) return fmt::format("{:.3g} us", seconds * 1e6);
  if (magnitude < 1.0) return fmt::format("{:.3g} ms", seconds * 1e3);
  return fmt::format("{:.3g} s", seconds);
}

std::string format_number(double value) {
  const double magnitude = std::abs(value);
  if (value == 0.0) return "0";
  if (magnitude >= 1e6 || magnitude < 1e-3) return fmt::format("{:.4g}", value);
  if (magnitude >= 1000) return fmt::format("{:.0f}", value);
  if (magnitude >= 100) return fmt::format("{:.1f}", value);
  if (magnitude >= 10) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

}  // namespace ironbench
