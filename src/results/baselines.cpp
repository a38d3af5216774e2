#include "results/baselines.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"

namespace ironbench::results {
namespace {

constexpr std::string_view ref_prefix = "ref:";
constexpr std::string_view file_suffix = ".json";

// Where a value sits in the document, for messages: "cases[3].metrics[0].value".
struct location {
  const std::string& origin;
  std::string path;

  [[nodiscard]] location operator/(std::string_view key) const {
    return {origin, path.empty() ? std::string(key) : fmt::format("{}.{}", path, key)};
  }
  [[nodiscard]] location operator[](std::size_t index) const { return {origin, fmt::format("{}[{}]", path, index)}; }

  [[noreturn]] void fail(std::string_view what) const {
    if (path.empty()) throw usage_error(fmt::format("{}: {}", origin, what));
    throw usage_error(fmt::format("{}: {}: {}", origin, path, what));
  }
};

const json& member(const json& object, std::string_view key, const location& at) {
  const auto found = object.find(key);
  if (found == object.end()) (at / key).fail("missing");
  return *found;
}

std::string text_of(const json& value, const location& at, bool may_be_empty = false) {
  if (!value.is_string()) at.fail("expected a string");
  auto text = value.get<std::string>();
  if (text.empty() && !may_be_empty) at.fail("must not be empty");
  return text;
}

std::string required_text(const json& object, std::string_view key, const location& at) {
  return text_of(member(object, key, at), at / key);
}

std::string optional_text(const json& object, std::string_view key, const location& at) {
  const auto found = object.find(key);
  return found == object.end() ? std::string() : text_of(*found, at / key);
}

void expect_object(const json& value, const location& at) {
  if (!value.is_object()) at.fail("expected an object");
}

void only_keys(const json& object, std::initializer_list<std::string_view> allowed, const location& at) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) (at / key).fail("unknown field");
  }
}

bool is_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "YYYY-MM" or "YYYY-MM-DD" with a month 1..12 and a day 1..31.
bool valid_date(std::string_view date) {
  if (date.size() != 7 && date.size() != 10) return false;
  if (!is_digits(date.substr(0, 4)) || date[4] != '-' || !is_digits(date.substr(5, 2))) return false;
  const int month = std::stoi(std::string(date.substr(5, 2)));
  if (month < 1 || month > 12) return false;
  if (date.size() == 7) return true;
  if (date[7] != '-' || !is_digits(date.substr(8, 2))) return false;
  const int day = std::stoi(std::string(date.substr(8, 2)));
  return day >= 1 && day <= 31;
}

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

std::string iso_time(const std::string& date) {
  if (date.empty()) return {};
  return fmt::format("{}T00:00:00Z", date.size() == 7 ? date + "-01" : date);
}

// "title" (publisher, date) url
std::string describe_source(const json& source) {
  std::string text = fmt::format("\"{}\"", source.at("title").get<std::string>());
  std::vector<std::string> between;
  for (const char* key : {"publisher", "date"}) {
    if (source.contains(key)) between.push_back(source.at(key).get<std::string>());
  }
  if (!between.empty()) text += fmt::format(" ({})", fmt::join(between, ", "));
  if (source.contains("url")) text += " " + source.at("url").get<std::string>();
  return text;
}

json parse_source(const json& source, const location& at) {
  expect_object(source, at);
  only_keys(source, {"title", "publisher", "author", "date", "url", "code_url", "sponsor", "note"}, at);
  (void)required_text(source, "title", at);
  for (const char* key : {"publisher", "author", "url", "code_url", "sponsor", "note"})
    (void)optional_text(source, key, at);
  const auto date = optional_text(source, "date", at);
  if (!date.empty() && !valid_date(date)) (at / "date").fail(fmt::format("'{}' is not YYYY-MM or YYYY-MM-DD", date));
  return source;
}

core::axis_value parameter_value(const json& value, const location& at) {
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
    at.fail("integer out of range");
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  at.fail("expected an integer, a number or a string");
}

core::metric parse_metric(const json& j, const location& at) {
  expect_object(j, at);
  only_keys(j, {"name", "value", "unit", "description"}, at);
  core::metric m;
  m.name = required_text(j, "name", at);
  const auto& value = member(j, "value", at);
  if (!value.is_number()) (at / "value").fail("expected a number");
  m.value = value.get<double>();
  m.unit = text_of(member(j, "unit", at), at / "unit", true);  // empty: dimensionless
  m.description = optional_text(j, "description", at);
  return m;
}

// The identity of a case within its baseline: benchmark, device and the sorted parameters.
std::string case_key(const core::case_result& c) {
  std::vector<std::string> params;
  for (const auto& [name, value] : c.params.entries()) params.push_back(name + '=' + core::to_string(value));
  std::sort(params.begin(), params.end());
  return fmt::format("{} | {} | {}", c.benchmark, c.device, fmt::join(params, " "));
}

core::case_result parse_case(const json& j, const location& at, const std::string& default_device,
                             const std::string& source_text) {
  expect_object(j, at);
  only_keys(j, {"benchmark", "device", "params", "metrics", "where", "note"}, at);
  core::case_result c;
  c.benchmark = required_text(j, "benchmark", at);
  c.device = j.contains("device") ? required_text(j, "device", at) : default_device;
  const auto& params = member(j, "params", at);
  expect_object(params, at / "params");
  for (const auto& [name, value] : params.items()) {
    if (name.empty()) (at / "params").fail("empty parameter name");
    c.params.set(name, parameter_value(value, at / "params" / name));
  }
  if (c.params.contains("size")) c.param_units["size"] = "B";
  const auto& metrics = member(j, "metrics", at);
  if (!metrics.is_array() || metrics.empty()) (at / "metrics").fail("expected a non-empty array");
  std::set<std::string> names;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    auto m = parse_metric(metrics[i], (at / "metrics")[i]);
    if (!names.insert(m.name).second) ((at / "metrics")[i] / "name").fail(fmt::format("duplicate metric '{}'", m.name));
    c.metrics.push_back(std::move(m));
  }
  const auto where = required_text(j, "where", at);
  c.notes["source"] = fmt::format("{}; {}", source_text, where);
  const auto note = optional_text(j, "note", at);
  if (!note.empty()) c.notes["note"] = note;
  c.status = core::case_status::valid;
  return c;
}

json parse_document(const std::string& json_text, const location& at) {
  try {
    return json::parse(json_text);
  } catch (const json::parse_error& e) {
    at.fail(fmt::format("not valid JSON: {}", e.what()));
  }
}

std::string_view stem_of(std::string_view file_name) {
  if (file_name.size() > file_suffix.size() && file_name.ends_with(file_suffix)) {
    file_name.remove_suffix(file_suffix.size());
  }
  return file_name;
}

core::run_result parse_embedded(const embedded_baseline_file& file) {
  const auto origin = fmt::format("data/baselines/{}", file.file_name);
  auto run = parse_baseline(std::string(file.text), origin);
  const auto name = run.settings.at("baseline").get<std::string>();
  if (name != stem_of(file.file_name)) {
    throw usage_error(fmt::format("{}: name: '{}' differs from the file name", origin, name));
  }
  return run;
}

}  // namespace

core::run_result parse_baseline(const std::string& json_text, const std::string& origin) {
  const location root{origin, {}};
  const auto doc = parse_document(json_text, root);
  expect_object(doc, root);
  only_keys(doc, {"schema_version", "name", "title", "source", "hardware", "cases"}, root);
  const auto& version = member(doc, "schema_version", root);
  if (!version.is_number_integer() || version.get<std::int64_t>() != baseline_schema_version) {
    (root / "schema_version")
        .fail(fmt::format("expected {}, found {}", baseline_schema_version, core::json_text(version)));
  }
  const auto name = required_text(doc, "name", root);
  if (!valid_name(name)) (root / "name").fail(fmt::format("'{}' may hold only a-z, 0-9, '-', '_' and '.'", name));
  const auto title = required_text(doc, "title", root);
  const auto source = parse_source(member(doc, "source", root), root / "source");
  const auto source_text = describe_source(source);
  json hardware = json::object();
  if (doc.contains("hardware")) {
    hardware = doc.at("hardware");
    expect_object(hardware, root / "hardware");
  }
  const auto default_device = hardware.contains("gpu") && hardware.at("gpu").is_string()
                                  ? hardware.at("gpu").get<std::string>()
                                  : std::string();

  core::run_result run;
  run.tool = {{"name", "published reference"}, {"baseline", name}, {"source", source_text}};
  const auto date = source.value("date", std::string());
  run.start_time = iso_time(date);
  run.end_time = run.start_time;
  run.host = hardware;
  run.host["source"] = source;
  run.settings = {{"baseline", name}, {"title", title}, {"source", source}};

  const auto& cases = member(doc, "cases", root);
  if (!cases.is_array() || cases.empty()) (root / "cases").fail("expected a non-empty array");
  std::set<std::string> keys;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto c = parse_case(cases[i], (root / "cases")[i], default_device, source_text);
    if (!keys.insert(case_key(c)).second) {
      (root / "cases")[i].fail(
          fmt::format("duplicate case ({} with the same device and params as an earlier one)", c.benchmark));
    }
    run.cases.push_back(std::move(c));
  }
  run.status = core::run_status::valid;
  return run;
}

std::vector<baseline_info> list_baselines() {
  std::vector<baseline_info> list;
  for (const auto& file : embedded_baseline_files()) {
    const auto run = parse_embedded(file);
    list.push_back({run.settings.at("baseline").get<std::string>(), run.settings.at("title").get<std::string>(),
                    run.tool.at("source").get<std::string>(), run.cases.size()});
  }
  std::sort(list.begin(), list.end(), [](const baseline_info& a, const baseline_info& b) { return a.name < b.name; });
  return list;
}

core::run_result baseline_run(const std::string& name) {
  std::string_view wanted = name;
  if (wanted.starts_with(ref_prefix)) wanted.remove_prefix(ref_prefix.size());
  std::vector<std::string> known;
  for (const auto& file : embedded_baseline_files()) {
    if (stem_of(file.file_name) == wanted) return parse_embedded(file);
    known.emplace_back(stem_of(file.file_name));
  }
  std::sort(known.begin(), known.end());
  throw usage_error(fmt::format("unknown baseline '{}'; known baselines: {}", wanted,
                                known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
}

}  // namespace ironbench::results
