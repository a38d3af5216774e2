#include "core/axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/error.hpp"
#include "core/units.hpp"

namespace ironbench::core {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

[[noreturn]] void bad_axis(const axis_override& o, const std::string& why) {
  throw usage_error(fmt::format("invalid --axis '{}': {}", o.text, why));
}

void check_count(const axis_override& o, std::size_t count) {
  if (count > max_axis_values) {
    bad_axis(o, fmt::format("more than {} values", max_axis_values));
  }
}

// Makes room for `extra` more values. The capacity at least doubles when it grows: reserving
// exactly size + extra for every range would move the whole list once per range, quadratic time
// for a long list of short ranges ("1:9,1:9,...").
void reserve_more(std::vector<axis_value>& out, std::size_t extra) {
  const auto needed = out.size() + extra;
  if (needed > out.capacity()) out.reserve(std::max(needed, 2 * out.capacity()));
}

// A parsed range step: additive (+S) or multiplicative (xF).
struct step {
  bool multiply = false;
  std::string_view amount;
};

step parse_step(std::string_view text) {
  if (text.empty()) return {false, "1"};
  if (text.front() == 'x' || text.front() == '*') return {true, text.substr(1)};
  if (text.front() == '+') return {false, text.substr(1)};
  return {false, text};
}

void append_integer_range(const axis_override& o, std::int64_t low, std::int64_t high, step how,
                          std::vector<axis_value>& out) {
  if (low > high) bad_axis(o, fmt::format("range start {} is above its end {}", low, high));
  const auto amount = parse_integer(how.amount, "axis step");
  if (how.multiply) {
    if (amount < 2) bad_axis(o, "a multiplicative step must be x2 or more");
    if (low <= 0) bad_axis(o, "a multiplicative range must start above 0");
    for (auto value = low; value <= high; value *= amount) {
      out.emplace_back(value);
      check_count(o, out.size());
      if (value > high / amount) break;
    }
  } else {
    if (amount < 1) bad_axis(o, "an additive step must be 1 or more");
    // Counted before anything is appended: 1:1E18 is refused at once, not after 100,000 values.
    // The span is taken in unsigned arithmetic, where -9E18:9E18 fits.
    const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    const auto steps = span / static_cast<std::uint64_t>(amount);  // values after the first
    // Saturated before adding the first value, which 2^64 - 1 steps would wrap to 0.
    check_count(o, out.size() + std::min<std::uint64_t>(steps, max_axis_values) + 1);
    const auto count = static_cast<std::size_t>(steps) + 1;
    reserve_more(out, count);
    for (std::uint64_t i = 0; i < count; ++i) {
      // low + i * amount, at most high: computed modulo 2^64, which C++20 converts back exactly.
      out.emplace_back(
          static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + i * static_cast<std::uint64_t>(amount)));
    }
  }
}

void append_floating_range(const axis_override& o, double low, double high, step how, std::vector<axis_value>& out) {
  if (low > high) bad_axis(o, fmt::format("range start {} is above its end {}", low, high));
  const auto amount = parse_number(how.amount, "axis step");
  const double tolerance = 1e-9 * std::max(std::abs(low), std::abs(high));
  if (how.multiply) {
    if (amount <= 1.0) bad_axis(o, "a multiplicative step must be above 1");
    if (low <= 0.0) bad_axis(o, "a multiplicative range must start above 0");
    for (double value = low; value <= high + tolerance; value *= amount) {
      out.emplace_back(value);
      check_count(o, out.size());
    }
  } else {
    if (amount <= 0.0) bad_axis(o, "an additive step must be above 0");
    // Counted in floating point first: the span over a tiny step may be beyond any integer.
    const double steps = std::floor((high - low) / amount + 1e-9);
    if (!(steps < static_cast<double>(max_axis_values)))
      bad_axis(o, fmt::format("more than {} values", max_axis_values));
    const auto count = static_cast<std::size_t>(steps) + 1;
    check_count(o, out.size() + count);
    reserve_more(out, count);
    for (std::size_t i = 0; i < count; ++i) out.emplace_back(low + static_cast<double>(i) * amount);
  }
}

std::int64_t pow2_value(const axis_override& o, std::int64_t exponent) {
  if (exponent < 0 || exponent > 62) bad_axis(o, "a pow2 exponent must be within 0..62");
  return std::int64_t{1} << exponent;
}

void append_item(const axis& target, const axis_override& o, std::string_view item, std::vector<axis_value>& out) {
  if (item.empty()) bad_axis(o, "empty value in the list");
  const auto what = fmt::format("value of axis {}", target.name);
  const auto parts = split(item, ':');
  if (parts.size() > 3) bad_axis(o, fmt::format("'{}' is not LO:HI[:STEP]", item));
  if (target.kind == axis_kind::string) {
    if (parts.size() != 1) bad_axis(o, "string axes take a list, not a range");
    const std::string value(item);
    if (!target.choices.empty() &&
        std::find(target.choices.begin(), target.choices.end(), value) == target.choices.end()) {
      bad_axis(o, fmt::format("'{}' is not one of {}", value, fmt::join(target.choices, ", ")));
    }
    out.emplace_back(value);
    return;
  }
  if (target.kind == axis_kind::floating) {
    if (o.pow2) bad_axis(o, "[pow2] applies to integer axes only");
    if (parts.size() == 1) {
      out.emplace_back(parse_number(item, what));
      return;
    }
    append_floating_range(o, parse_number(parts[0], what), parse_number(parts[1], what),
                          parse_step(parts.size() == 3 ? parts[2] : ""), out);
    return;
  }
  if (o.pow2) {
    std::vector<axis_value> exponents;
    if (parts.size() == 1) {
      exponents.emplace_back(parse_integer(item, what));
    } else {
      append_integer_range(o, parse_integer(parts[0], what), parse_integer(parts[1], what),
                           parse_step(parts.size() == 3 ? parts[2] : ""), exponents);
    }
    for (const auto& e : exponents) out.emplace_back(pow2_value(o, std::get<std::int64_t>(e)));
    return;
  }
  if (parts.size() == 1) {
    out.emplace_back(parse_integer(item, what));
    return;
  }
  append_integer_range(o, parse_integer(parts[0], what), parse_integer(parts[1], what),
                       parse_step(parts.size() == 3 ? parts[2] : ""), out);
}

}  // namespace

axis integer_axis(std::string name, const std::vector<std::int64_t>& values, std::string description) {
  axis result;
  result.name = std::move(name);
  result.description = std::move(description);
  for (auto v : values) result.values.emplace_back(v);
  return result;
}

axis size_axis(std::string name, const std::vector<std::int64_t>& values_bytes, std::string description) {
  auto result = integer_axis(std::move(name), values_bytes, std::move(description));
  result.unit = "B";
  return result;
}

axis floating_axis(std::string name, const std::vector<double>& values, std::string description) {
  axis result;
  result.name = std::move(name);
  result.kind = axis_kind::floating;
  result.description = std::move(description);
  for (auto v : values) result.values.emplace_back(v);
  return result;
}

axis string_axis(std::string name, std::vector<std::string> values, std::string description,
                 std::vector<std::string> choices) {
  axis result;
  result.name = std::move(name);
  result.kind = axis_kind::string;
  result.description = std::move(description);
  for (auto& v : values) result.values.emplace_back(std::move(v));
  result.choices = std::move(choices);
  return result;
}

std::string to_string(const axis_value& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return fmt::format("{}", *d);
  return std::get<std::string>(value);
}

std::string display_value(const axis& of_axis, const axis_value& value) {
  if (of_axis.unit == "B") {
    if (const auto* i = std::get_if<std::int64_t>(&value)) return format_size_label(*i);
  }
  return to_string(value);
}

axis_override parse_axis_override(std::string_view text) {
  axis_override result;
  result.text = std::string(text);
  const auto equals = text.find('=');
  if (equals == std::string_view::npos) {
    bad_axis(result, "expected NAME=VALUES, e.g. M=4096,8192 or size=1M:8G:x2");
  }
  auto name = text.substr(0, equals);
  auto spec = text.substr(equals + 1);
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    result.benchmark = std::string(name.substr(0, colon));
    name = name.substr(colon + 1);
    if (result.benchmark.empty()) bad_axis(result, "empty benchmark name before ':'");
  }
  if (name.ends_with("[pow2]")) {
    result.pow2 = true;
    name.remove_suffix(6);
  }
  const bool valid_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!valid_name) bad_axis(result, "the axis name must be letters, digits, '_' or '-'");
  if (spec.size() >= 2 && spec.front() == '[' && spec.back() == ']') {
    spec = spec.substr(1, spec.size() - 2);
  }
  if (spec.empty()) bad_axis(result, "no values after '='");
  result.name = std::string(name);
  result.spec = std::string(spec);
  return result;
}

std::vector<axis_value> parse_axis_values(const axis& target, const axis_override& override_spec) {
  std::vector<axis_value> values;
  for (const auto item : split(override_spec.spec, ',')) {
    append_item(target, override_spec, item, values);
    check_count(override_spec, values.size());  // single values after a range count too
  }
  return values;
}

}  // namespace ironbench::core
