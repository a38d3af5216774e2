#include "validate/verdict.hpp"

#include <fmt/format.h>

namespace ironbench::validate {

const char* to_string(verdict v) {
  switch (v) {
    case verdict::pass: return "PASS";
    case verdict::warn: return "WARN";
    case verdict::fail: return "FAIL";
    case verdict::skip: return "SKIP";
  }
  return "SKIP";
}

void judge(check_row& row, const verdict_rules& rules) {
  if (!row.measured || !row.expected || row.expected->value <= 0) return;
  const double ratio = *row.measured / row.expected->value;
  row.ratio = ratio;
  if (ratio < rules.fail_below) {
    row.result = verdict::fail;
    row.rule = fmt::format("{:.2f} x expected < {:.2f}: FAIL", ratio, rules.fail_below);
  } else if (ratio < rules.warn_below) {
    row.result = verdict::warn;
    row.rule = fmt::format("{:.2f} x expected < {:.2f}: WARN", ratio, rules.warn_below);
  } else {
    row.result = verdict::pass;
    row.rule = fmt::format("{:.2f} x expected >= {:.2f}: PASS", ratio, rules.warn_below);
  }
}

verdict summary_verdict(const std::vector<check_row>& rows) {
  verdict worst = verdict::pass;
  for (const auto& r : rows) {
    if (r.result == verdict::fail) return verdict::fail;
    if (r.result == verdict::warn) worst = verdict::warn;
  }
  return worst;
}

std::vector<std::string> deciding_checks(const std::vector<check_row>& rows) {
  const auto overall = summary_verdict(rows);
  std::vector<std::string> out;
  if (overall == verdict::pass) return out;
  for (const auto& r : rows) {
    if (r.result != overall) continue;
    auto name = r.device.empty() ? r.check : r.check + " on " + r.device;
    out.push_back(r.node.empty() ? std::move(name) : r.node + ": " + name);
  }
  return out;
}

int exit_code_of(verdict v) {
  switch (v) {
    case verdict::fail: return 2;
    case verdict::warn: return 1;
    default: return 0;
  }
}

json to_json(const check_row& row) {
  json j = {{"check", row.check}, {"device", row.device}, {"verdict", to_string(row.result)}, {"rule", row.rule}};
  if (!row.node.empty()) j["node"] = row.node;
  if (row.measured) j["measured"] = *row.measured;
  if (!row.unit.empty()) j["unit"] = row.unit;
  if (row.expected) {
    j["expected"] = row.expected->value;
    j["expected_source"] = row.expected->source;
    j["expected_from"] = row.expected->origin;
  }
  if (row.ratio) j["ratio"] = *row.ratio;
  if (!row.evidence.empty()) j["evidence"] = row.evidence;
  return j;
}

}  // namespace ironbench::validate
