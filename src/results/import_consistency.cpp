#include "results/import_consistency.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/text.hpp"

namespace ironbench::results {
namespace {

bool within(double a, double b, agreement tolerance) {
  return std::abs(a - b) <= tolerance.absolute + tolerance.relative * std::abs(b);
}

std::string with_unit(double value, std::string_view unit) {
  return unit.empty() ? fmt::format("{:.6g}", value) : fmt::format("{:.6g} {}", value, unit);
}

}  // namespace

void consistency_check::agree(std::string_view stated_name, double stated, double implied,
                              std::string_view implied_from, std::string_view unit, agreement tolerance) {
  if (!std::isfinite(implied) || within(stated, implied, tolerance)) return;
  problems_.push_back(fmt::format("{} {} contradicts {} = {}", stated_name, with_unit(stated, unit), implied_from,
                                  with_unit(implied, unit)));
}

void consistency_check::ordered(const std::vector<std::pair<std::string, double>>& values, std::string_view unit,
                                agreement tolerance) {
  for (std::size_t i = 1; i < values.size(); ++i) {
    const auto& [low_name, low] = values[i - 1];
    const auto& [high_name, high] = values[i];
    if (high >= low || within(high, low, tolerance)) continue;
    problems_.push_back(
        fmt::format("{} {} is below {} {}", high_name, with_unit(high, unit), low_name, with_unit(low, unit)));
  }
}

void consistency_check::at_most(std::string_view stated_name, double stated, double bound, std::string_view bound_from,
                                std::string_view unit, agreement tolerance) {
  if (!std::isfinite(bound) || stated <= bound || within(stated, bound, tolerance)) return;
  problems_.push_back(
      fmt::format("{} {} exceeds {} = {}", stated_name, with_unit(stated, unit), bound_from, with_unit(bound, unit)));
}

void consistency_check::contradiction(std::string text) { problems_.push_back(std::move(text)); }

std::string consistency_check::reason() const { return "inconsistent numbers: " + join(problems_, "; "); }

void consistency_check::apply_to(core::case_result& c) const {
  if (consistent()) return;
  c.notes["consistency"] = reason();
  if (c.status == core::case_status::valid) c.status = core::case_status::invalid;
  c.reason = c.reason.empty() ? reason() : c.reason + "; " + reason();
}

}  // namespace ironbench::results
