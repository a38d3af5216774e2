#include "validate/node_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/statistics.hpp"
#include "report/text_table.hpp"

namespace ironbench::validate {
namespace {

verdict verdict_named(const std::string& name) {
  if (name == "FAIL") return verdict::fail;
  if (name == "WARN") return verdict::warn;
  if (name == "SKIP") return verdict::skip;
  return verdict::pass;
}

using check_key = std::pair<std::string, std::string>;  // check, device

}  // namespace

std::vector<std::string> node_labels(const std::vector<std::string>& hostnames) {
  std::map<std::string, int> count;
  for (const auto& h : hostnames) ++count[h];
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < hostnames.size(); ++i) {
    labels.push_back(count[hostnames[i]] > 1 ? fmt::format("{} (rank {})", hostnames[i], i) : hostnames[i]);
  }
  return labels;
}

node_table merge_nodes(std::vector<node_report> reports, double slow_below) {
  node_table t;
  std::map<check_key, std::vector<std::pair<std::string, double>>> values;
  std::vector<verdict> verdicts;
  for (const auto& r : reports) {
    t.nodes.push_back(r.node);
    verdicts.push_back(verdict_named(r.validation.value("verdict", "PASS")));
    for (const auto& c : r.validation.value("checks", json::array())) {
      if (!c.contains("measured")) continue;
      values[{c.value("check", ""), c.value("device", "")}].emplace_back(r.node, c["measured"].get<double>());
    }
  }
  for (const auto& [key, per_node] : values) {
    if (per_node.size() < 2) continue;
    std::vector<double> numbers;
    for (const auto& [node, value] : per_node) numbers.push_back(value);
    const double middle = core::percentile(numbers, 50);
    for (const auto& [node, value] : per_node) {
      if (value < slow_below * middle) t.slow.push_back({node, key.first, key.second, value, middle});
    }
  }
  t.overall = verdict::pass;
  for (const auto v : verdicts) {
    if (v == verdict::fail) t.overall = verdict::fail;
    if (v == verdict::warn && t.overall != verdict::fail) t.overall = verdict::warn;
  }
  t.reports = std::move(reports);
  return t;
}

void write_node_table(const node_table& t, std::ostream& out) {
  report::text_table table;
  table.add_column("check", report::text_table::align::left);
  table.add_column("device", report::text_table::align::left);
  for (const auto& node : t.nodes) table.add_column(node, report::text_table::align::left);
  std::vector<check_key> order;
  std::map<check_key, std::map<std::string, std::string>> cells;
  for (const auto& r : t.reports) {
    for (const auto& c : r.validation.value("checks", json::array())) {
      const check_key key{c.value("check", ""), c.value("device", "")};
      if (!cells.contains(key)) order.push_back(key);
      cells[key][r.node] = c.contains("measured")
                               ? fmt::format("{:.4g} {}", c["measured"].get<double>(), c.value("verdict", ""))
                               : c.value("verdict", "");
    }
  }
  for (const auto& key : order) {
    std::vector<std::string> row{key.first, key.second};
    for (const auto& node : t.nodes) row.push_back(cells[key].contains(node) ? cells[key][node] : "-");
    table.add_row(std::move(row));
  }
  out << fmt::format("\nValidation of {} nodes\n", t.nodes.size());
  table.render_text(out);
  if (t.slow.empty()) {
    out << "\nslow nodes: none (every node within 0.9 x the median of every check)\n";
  } else {
    out << "\nslow nodes (below 0.9 x the nodes' median):\n";
    for (const auto& s : t.slow) {
      out << fmt::format("  {}: {}{} {:.4g} against a median of {:.4g} ({:.0f} %)\n", s.node, s.check,
                         s.device.empty() ? "" : " on " + s.device, s.measured, s.median, 100 * s.measured / s.median);
    }
  }
  out << fmt::format("validation of {} nodes: {} (exit code {})\n", t.nodes.size(), to_string(t.overall),
                     exit_code_of(t.overall));
}

json to_json(const node_table& t) {
  json nodes = json::array();
  for (const auto& r : t.reports) nodes.push_back({{"node", r.node}, {"validation", r.validation}});
  json slow = json::array();
  for (const auto& s : t.slow) {
    slow.push_back(
        {{"node", s.node}, {"check", s.check}, {"device", s.device}, {"measured", s.measured}, {"median", s.median}});
  }
  return {{"verdict", to_string(t.overall)},
          {"exit_code", exit_code_of(t.overall)},
          {"nodes", nodes},
          {"slow_nodes", slow}};
}

}  // namespace ironbench::validate
