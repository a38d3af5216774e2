#include "experiment/metric_extraction.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/bounded_file.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "core/text_match.hpp"
#include "experiment/log_pattern.hpp"

namespace ironbench::experiment {
namespace {

// "7,123", "-1,234,567.5": an optional sign, one to three digits, then groups of a comma and
// three digits, and an optional decimal part.
bool has_thousands_separators(std::string_view text) {
  text_scanner s(text);
  if (!s.literal("-")) s.literal("+");
  const auto leading = s.digits().size();
  if (leading < 1 || leading > 3) return false;
  std::size_t groups = 0;
  for (; s.literal(","); ++groups) {
    if (s.digits().size() != 3) return false;
  }
  if (groups == 0) return false;
  if (s.literal(".")) (void)s.digits();
  return s.at_end();
}

// A number as tools print it: "1234.5", "1e-3", or with thousands separators, "7,123" (as
// torchtitan logs tokens per second).
std::optional<double> number_of(const std::string& printed) {
  auto text = trim_copy(printed);
  if (has_thousands_separators(text)) std::erase(text, ',');
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The text of the file a json or csv rule reads, or nullopt (and a line in out.missing).
std::optional<std::string> read_rule_file(const planned_metric& rule, const std::string& workdir,
                                          extracted_metrics& out) {
  const auto path = path_in(workdir, rule.file);
  try {
    return core::read_bounded_file(path, core::file_kinds::metric_file);
  } catch (const usage_error& e) {
    out.missing.push_back(fmt::format("metric '{}': {}", rule.name, e.what()));
    return std::nullopt;
  }
}

void from_regex(const planned_metric& rule, const std::string& log, extracted_metrics& out) {
  const log_pattern pattern(rule.pattern, "metric regex");
  const auto all = pattern.matches(log);
  if (all.empty()) {
    out.missing.push_back(fmt::format("no output line matches the regex '{}'", rule.pattern));
    return;
  }
  const auto& last = all.back();
  const auto& names = pattern.group_names();
  if (names.empty()) {
    out.missing.push_back(fmt::format("the regex '{}' has no named group (?<value>...)", rule.pattern));
    return;
  }
  for (const auto& group : names) {
    const auto text = last.find(group);
    const auto value = text == last.end() ? std::nullopt : number_of(text->second);
    const auto name = group == "value" && !rule.name.empty() ? rule.name : group;
    if (!value) {
      out.missing.push_back(
          fmt::format("metric '{}': '{}' is not a number", name, text == last.end() ? std::string() : text->second));
      continue;
    }
    out.metrics.push_back({name, *value, rule.unit, "regex " + rule.pattern});
  }
}

void from_performance(const planned_metric& rule, const std::string& log, extracted_metrics& out) {
  const log_pattern pattern(R"(^\s*performance:\s*(?<value>\S+)\s*(?<unit>.*?)\s*$)", "performance");
  const auto all = pattern.matches(log);
  const auto value = all.empty() ? std::nullopt : number_of(all.back().at("value"));
  if (!value) {
    out.missing.push_back("no 'performance: VALUE UNIT' line with a number");
    return;
  }
  const auto unit = all.back().count("unit") != 0 ? all.back().at("unit") : std::string();
  out.metrics.push_back({rule.name.empty() ? "performance" : rule.name, *value, rule.unit.empty() ? unit : rule.unit,
                         "performance line"});
}

void from_json(const planned_metric& rule, const std::string& workdir, extracted_metrics& out) {
  const auto text = read_rule_file(rule, workdir, out);
  if (!text) return;
  const auto path = path_in(workdir, rule.file);
  const auto doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded()) {
    out.missing.push_back(fmt::format("metric '{}': '{}' is not JSON", rule.name, path));
    return;
  }
  try {
    const auto& value = doc.at(json::json_pointer(rule.pointer));
    if (!value.is_number()) throw std::invalid_argument("not a number");
    out.metrics.push_back({rule.name, value.get<double>(), rule.unit, fmt::format("{}#{}", rule.file, rule.pointer)});
  } catch (const std::exception&) {
    out.missing.push_back(fmt::format("metric '{}': no number at {} in '{}'", rule.name, rule.pointer, path));
  }
}

void from_csv(const planned_metric& rule, const std::string& workdir, extracted_metrics& out) {
  const auto text = read_rule_file(rule, workdir, out);
  if (!text) return;
  const auto path = path_in(workdir, rule.file);
  const auto lines = split_lines(*text);
  std::vector<std::string> rows;
  for (const auto& l : lines) {
    if (!trim_copy(l).empty()) rows.push_back(l);
  }
  if (rows.size() < 2) {
    out.missing.push_back(fmt::format("metric '{}': '{}' has no data row", rule.name, path));
    return;
  }
  const auto header = split_fields(rows.front(), ',');
  const auto column = std::find(header.begin(), header.end(), rule.column);
  if (column == header.end()) {
    out.missing.push_back(fmt::format("metric '{}': '{}' has no column '{}'", rule.name, path, rule.column));
    return;
  }
  const auto cells = split_fields(rows.back(), ',');
  const auto index = static_cast<std::size_t>(column - header.begin());
  const auto value = index < cells.size() ? number_of(cells[index]) : std::nullopt;
  if (!value) {
    out.missing.push_back(
        fmt::format("metric '{}': the last row of '{}' has no number in '{}'", rule.name, path, rule.column));
    return;
  }
  out.metrics.push_back({rule.name, *value, rule.unit, fmt::format("{} column {}", rule.file, rule.column)});
}

}  // namespace

std::string path_in(const std::string& workdir, const std::string& file) {
  const std::filesystem::path p(file);
  return p.is_absolute() || workdir.empty() ? file : (std::filesystem::path(workdir) / p).string();
}

extracted_metrics extract_metrics(const std::vector<planned_metric>& rules, const std::string& log,
                                  const std::string& workdir) {
  extracted_metrics out;
  for (const auto& rule : rules) {
    if (rule.method == "regex") from_regex(rule, log, out);
    if (rule.method == "performance") from_performance(rule, log, out);
    if (rule.method == "json") from_json(rule, workdir, out);
    if (rule.method == "csv") from_csv(rule, workdir, out);
  }
  return out;
}

}  // namespace ironbench::experiment
