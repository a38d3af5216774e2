#include "core/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

bool applies_to(const axis_override& o, std::string_view benchmark) {
  return o.benchmark.empty() || o.benchmark == benchmark;
}

std::string axis_names(const std::vector<axis>& axes) {
  std::vector<std::string> names;
  for (const auto& a : axes) names.push_back(a.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Fills non-overridden members of partially overridden zip groups and checks the lengths.
void settle_zip_groups(std::string_view benchmark, std::vector<axis>& axes, const std::set<std::string>& overridden) {
  std::map<std::string, std::vector<axis*>> groups;
  for (auto& a : axes) {
    if (!a.zip_group.empty()) groups[a.zip_group].push_back(&a);
  }
  for (auto& [group, members] : groups) {
    const auto first_overridden =
        std::find_if(members.begin(), members.end(), [&](axis* a) { return overridden.count(a->name) != 0; });
    if (first_overridden != members.end()) {
      for (auto* member : members) {
        if (overridden.count(member->name) == 0 && member->kind == (*first_overridden)->kind) {
          member->values = (*first_overridden)->values;
        }
      }
    }
    std::size_t length = 1;
    for (const auto* member : members) length = std::max(length, member->values.size());
    for (const auto* member : members) {
      if (member->values.size() != length && member->values.size() != 1) {
        std::vector<std::string> sizes;
        for (const auto* m : members) sizes.push_back(fmt::format("{}={}", m->name, m->values.size()));
        throw usage_error(fmt::format("{}: axes {} advance together and need equal numbers of values (or one), got {}",
                                      benchmark, group, fmt::join(sizes, " ")));
      }
    }
  }
}

}  // namespace

std::vector<axis> apply_overrides(std::string_view benchmark, std::vector<axis> axes,
                                  const std::vector<axis_override>& overrides) {
  std::set<std::string> overridden;
  for (const auto& o : overrides) {
    if (!applies_to(o, benchmark)) continue;
    const auto target = std::find_if(axes.begin(), axes.end(), [&](const axis& a) { return a.name == o.name; });
    if (target == axes.end()) {
      if (o.benchmark.empty()) continue;  // another selected benchmark may have it
      throw usage_error(fmt::format("{} has no axis '{}' (its axes: {})", benchmark, o.name, axis_names(axes)));
    }
    if (!overridden.insert(o.name).second) {
      throw usage_error(fmt::format("axis {} of {} is given twice", o.name, benchmark));
    }
    target->values = parse_axis_values(*target, o);
  }
  settle_zip_groups(benchmark, axes, overridden);
  return axes;
}

std::vector<parameter_set> expand_sweep(const std::vector<axis>& axes) {
  // Each dimension of the product is a list of rows; a row assigns one or more axes.
  using row = std::vector<std::pair<std::string, axis_value>>;
  std::vector<std::vector<row>> dimensions;
  std::map<std::string, std::size_t> group_dimension;
  for (const auto& a : axes) {
    if (a.values.empty()) {
      throw usage_error(fmt::format("axis {} has no values; give them with --axis {}=...", a.name, a.name));
    }
    if (a.zip_group.empty() || group_dimension.count(a.zip_group) == 0) {
      if (!a.zip_group.empty()) group_dimension[a.zip_group] = dimensions.size();
      dimensions.emplace_back();
    }
    auto& rows = a.zip_group.empty() ? dimensions.back() : dimensions[group_dimension[a.zip_group]];
    const std::size_t length = std::max(rows.size(), a.values.size());
    if (rows.size() < length) rows.resize(length, rows.empty() ? row{} : rows.front());
    for (std::size_t i = 0; i < length; ++i) {
      rows[i].emplace_back(a.name, a.values.size() == 1 ? a.values.front() : a.values[i]);
    }
  }
  std::vector<parameter_set> cases{parameter_set{}};
  for (const auto& rows : dimensions) {
    std::vector<parameter_set> next;
    next.reserve(cases.size() * rows.size());
    for (const auto& prefix : cases) {
      for (const auto& r : rows) {
        auto combined = prefix;
        for (const auto& [name, value] : r) combined.set(name, value);
        next.push_back(std::move(combined));
      }
    }
    cases = std::move(next);
  }
  // Restore declaration order of the entries (zip members may have been appended late).
  for (auto& c : cases) {
    parameter_set ordered;
    for (const auto& a : axes) ordered.set(a.name, c.at(a.name));
    c = std::move(ordered);
  }
  return cases;
}

}  // namespace ironbench::core
