#include "validate/validation_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "report/text_table.hpp"

namespace ironbench::validate {
namespace {

std::string number(const std::optional<double>& value, const std::string& unit) {
  if (!value) return "-";
  return fmt::format("{:.4g} {}", *value, unit);
}

// Whether any row has evidence (a column of dashes says nothing on a machine without GPUs).
bool any_evidence(const validation_report& r) {
  return std::any_of(r.rows.begin(), r.rows.end(), [](const check_row& row) { return !row.evidence.empty(); });
}

report::text_table table_of(const validation_report& r, bool with_rule) {
  const bool evidence = any_evidence(r);
  report::text_table t;
  t.add_column("check", report::text_table::align::left);
  t.add_column("device", report::text_table::align::left);
  t.add_column("measured");
  t.add_column("expected");
  t.add_column("ratio");
  t.add_column("verdict", report::text_table::align::left);
  if (evidence) t.add_column("evidence", report::text_table::align::left);
  if (with_rule) t.add_column("rule", report::text_table::align::left);
  for (const auto& row : r.rows) {
    std::vector<std::string> cells{row.check,
                                   row.device,
                                   number(row.measured, row.unit),
                                   row.expected ? number(row.expected->value, row.expected->unit) : "-",
                                   row.ratio ? fmt::format("{:.2f}", *row.ratio) : "-",
                                   to_string(row.result)};
    if (evidence) cells.push_back(row.evidence.empty() ? "-" : row.evidence);
    if (with_rule) cells.push_back(row.rule);
    t.add_row(std::move(cells));
  }
  return t;
}

// "validation quick: FAIL (exit code 2): 42 checks: ...; FAIL from gemm bf16 ... on cuda:1, ...":
// the counts and, for a WARN or FAIL, the checks it comes from (the first 8, then how many more).
std::string summary_line(const validation_report& r) {
  std::map<verdict, int> counts;
  for (const auto& row : r.rows) ++counts[row.result];
  auto line = fmt::format("validation {}: {} (exit code {}): {} checks: {} PASS, {} WARN, {} FAIL, {} SKIP",
                          to_string(r.lvl), to_string(r.overall), exit_code_of(r.overall), r.rows.size(),
                          counts[verdict::pass], counts[verdict::warn], counts[verdict::fail], counts[verdict::skip]);
  const auto deciding = deciding_checks(r.rows);
  constexpr std::size_t named = 8;
  if (!deciding.empty()) {
    const std::vector<std::string> first(deciding.begin(), deciding.begin() + std::min(named, deciding.size()));
    line += fmt::format("; {} from {}", to_string(r.overall), fmt::join(first, ", "));
    if (deciding.size() > named) line += fmt::format(" and {} more", deciding.size() - named);
  }
  return line;
}

}  // namespace

void write_validation_console(const validation_report& r, std::ostream& out) {
  out << fmt::format(
      "\nValidation ({}; expected values: {}; PASS >= {:g} x expected > WARN >= {:g} x expected > FAIL)\n",
      to_string(r.lvl), r.expectations, r.rules.warn_below, r.rules.fail_below);
  table_of(r, true).render_text(out);
  out << '\n' << summary_line(r) << '\n';
}

void write_validation_markdown(const validation_report& r, std::ostream& out) {
  out << fmt::format(
      "# Validation: {}\n\n{}\n\nExpected values: {}. Rule: PASS at or above {:g} x expected, WARN "
      "below, FAIL below {:g} x expected; a case that fails or does not verify FAILs; doctor "
      "findings: critical FAIL, warning WARN, info PASS, for the devices and checks a finding affects (one "
      "that affects no check of this run PASSes). Evidence: a GPU GEMM case's mean SM clock, mean power "
      "and power limit.\n\n",
      to_string(r.overall), summary_line(r), r.expectations, r.rules.warn_below, r.rules.fail_below);
  table_of(r, true).render_markdown(out);
  out << "\n## Sources of the expected values\n\n";
  std::map<std::string, bool> seen;
  for (const auto& row : r.rows) {
    if (!row.expected || seen[row.expected->source]) continue;
    seen[row.expected->source] = true;
    out << "- " << row.check << " on " << row.device << ": " << row.expected->source << '\n';
  }
}

}  // namespace ironbench::validate
