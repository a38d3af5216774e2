#include "report/case_tables.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/units.hpp"
#include "report/add_unique.hpp"

namespace ironbench::report {
namespace {

bool headline_metric(const std::string& name) { return !name.ends_with("_best"); }

titled_table build_table(const core::run_result& run, const std::string& benchmark, const std::string& device) {
  std::vector<const core::case_result*> rows;
  std::vector<std::string> params;
  std::vector<std::pair<std::string, std::string>> metrics;  // name, unit
  bool any_timing = false;
  for (const auto& c : run.cases) {
    if (c.benchmark != benchmark || c.device != device) continue;
    rows.push_back(&c);
    for (const auto& [name, value] : c.params.entries()) add_unique(params, name);
    for (const auto& m : c.metrics) {
      if (headline_metric(m.name)) add_unique(metrics, {m.name, m.unit});
    }
    any_timing = any_timing || c.timing.has_value();
  }
  titled_table result{fmt::format("{} on {}", benchmark, device), {}};
  auto& table = result.table;
  for (const auto& p : params) table.add_column(p);
  if (any_timing) {
    table.add_column("time");
    table.add_column("cv");
    table.add_column("reps");
  }
  for (const auto& [name, unit] : metrics) {
    table.add_column(unit.empty() ? name : fmt::format("{} ({})", name, unit));
  }
  table.add_column("status", text_table::align::left);
  for (const auto* c : rows) {
    std::vector<std::string> cells;
    for (const auto& p : params) {
      cells.push_back(c->params.contains(p) ? display_param(*c, p, c->params.at(p)) : "");
    }
    if (any_timing) {
      if (c->timing && c->timing->time_s.count > 0) {
        cells.push_back(format_seconds(c->timing->time_s.median));
        cells.push_back(fmt::format("{:.1f}%", 100.0 * c->timing->time_s.cv));
        cells.push_back(std::to_string(c->timing->time_s.count));
      } else {
        cells.insert(cells.end(), {"", "", ""});
      }
    }
    for (const auto& [name, unit] : metrics) {
      const auto* m = c->find_metric(name);
      cells.push_back(m ? format_number(m->value) : "");
    }
    cells.push_back(status_cell(*c));
    table.add_row(std::move(cells));
  }
  return result;
}

}  // namespace

std::string display_param(const core::case_result& result, const std::string& name, const core::axis_value& value) {
  const auto unit = result.param_units.find(name);
  if (unit != result.param_units.end() && unit->second == "B") {
    if (const auto* bytes = std::get_if<std::int64_t>(&value)) return format_size_label(*bytes);
  }
  return core::to_string(value);
}

std::string status_cell(const core::case_result& result) {
  switch (result.status) {
    case core::case_status::valid:
      return result.unstable ? fmt::format("valid, UNSTABLE (robust CV {:.0f} %)", result.unstable->robust_cv * 100)
                             : "valid";
    case core::case_status::invalid: return "INVALID: " + result.reason;
    case core::case_status::skipped: return "skipped: " + result.reason;
    case core::case_status::failed: return "FAILED: " + result.reason;
  }
  return "";
}

std::vector<titled_table> case_tables(const core::run_result& run) {
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& c : run.cases) add_unique(groups, {c.benchmark, c.device});
  std::vector<titled_table> tables;
  for (const auto& [benchmark, device] : groups) tables.push_back(build_table(run, benchmark, device));
  return tables;
}

std::string status_counts(const core::run_result& run) {
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& c : run.cases) ++counts[static_cast<int>(c.status)];
  const auto unstable = std::count_if(run.cases.begin(), run.cases.end(), [](const core::case_result& c) {
    return c.status == core::case_status::valid && c.unstable;
  });
  return fmt::format("{} valid, {} invalid, {} skipped, {} failed{}", counts[0], counts[1], counts[2], counts[3],
                     unstable > 0 ? fmt::format("; {} of the valid unstable", unstable) : "");
}

std::vector<std::string> unstable_lines(const core::run_result& run) {
  std::vector<std::string> lines;
  for (const auto& c : run.cases) {
    if (c.status != core::case_status::valid || !c.unstable) continue;
    lines.push_back(fmt::format("{} on {} {}: {}", c.benchmark, c.device, c.params.label(), c.unstable->describe()));
  }
  return lines;
}

}  // namespace ironbench::report
