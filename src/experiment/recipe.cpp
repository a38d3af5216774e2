#include "experiment/recipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/bounded_file.hpp"
#include "core/text.hpp"

namespace ironbench::experiment {
namespace {

using kind = recipe_node::kind;

// What a key's value must be.
enum class shape { scalar, map, list, scalar_or_list };

struct key_rule {
  const char* key;
  shape expected;
  bool required = false;
};

const char* shape_name(shape s) {
  switch (s) {
    case shape::scalar: return "a scalar";
    case shape::map: return "a map";
    case shape::list: return "a list";
    case shape::scalar_or_list: return "a scalar or a list";
  }
  return "";
}

bool fits(const recipe_node& node, shape s) {
  switch (s) {
    case shape::scalar: return node.type == kind::scalar;
    case shape::map: return node.type == kind::map;
    case shape::list: return node.type == kind::sequence;
    case shape::scalar_or_list: return node.type == kind::scalar || node.type == kind::sequence;
  }
  return false;
}

// Checks that `node` is a map whose keys all have a rule, with values of the rule's shape,
// and that required keys are there. `what` names the map in messages ("serve step").
void check_map(const recipe_node& node, const std::vector<key_rule>& rules, const std::string& what) {
  if (node.type != kind::map) {
    throw recipe_error(node.where, fmt::format("{} must be a map, not {}", what, kind_name(node.type)));
  }
  for (const auto& [key, value] : node.entries) {
    const auto rule = std::find_if(rules.begin(), rules.end(), [&](const key_rule& r) { return key == r.key; });
    if (rule == rules.end()) {
      std::vector<std::string> known;
      for (const auto& r : rules) known.emplace_back(r.key);
      throw recipe_error(value.key_where,
                         fmt::format("unknown key '{}' in {} (known: {})", key, what, join(known, ", ")));
    }
    if (!fits(value, rule->expected)) {
      throw recipe_error(value.where, fmt::format("'{}' in {} must be {}, not {}", key, what,
                                                  shape_name(rule->expected), kind_name(value.type)));
    }
  }
  for (const auto& r : rules) {
    if (r.required && node.find(r.key) == nullptr) {
      throw recipe_error(node.where, fmt::format("{} needs '{}'", what, r.key));
    }
  }
}

located_text text_of(const recipe_node* node) {
  if (node == nullptr) return {};
  return {node->scalar, node->where};
}

// A list of scalars (or one scalar) as texts.
std::vector<located_text> texts_of(const recipe_node* node, const std::string& what) {
  std::vector<located_text> texts;
  if (node == nullptr) return texts;
  if (node->type == kind::scalar) return {text_of(node)};
  for (const auto& item : node->items) {
    if (item.type != kind::scalar) {
      throw recipe_error(item.where, fmt::format("{} must list scalars, not {}", what, kind_name(item.type)));
    }
    texts.push_back(text_of(&item));
  }
  return texts;
}

// A map of scalars (lists of scalars are joined with commas, as ironbench's options take them).
std::vector<std::pair<std::string, located_text>> pairs_of(const recipe_node* node, const std::string& what) {
  std::vector<std::pair<std::string, located_text>> pairs;
  if (node == nullptr) return pairs;
  for (const auto& [key, value] : node->entries) {
    if (value.type == kind::map) {
      throw recipe_error(value.where, fmt::format("'{}' in {} must be a scalar or a list, not a map", key, what));
    }
    std::vector<std::string> parts;
    for (const auto& t : texts_of(&value, fmt::format("'{}' in {}", key, what))) parts.push_back(t.text);
    pairs.emplace_back(key, located_text{join(parts, ","), value.where});
  }
  return pairs;
}

// The keys every step kind takes, beyond name and timeout.
const std::map<std::string, std::vector<key_rule>>& step_rules() {
  static const std::map<std::string, std::vector<key_rule>> rules = {
      {"service",
       {{"command", shape::scalar, true},
        {"env", shape::map},
        {"workdir", shape::scalar},
        {"launcher", shape::scalar},
        {"ready", shape::map, true},
        {"stop_grace", shape::scalar}}},
      {"serve", {{"url", shape::scalar}, {"options", shape::map}}},
      {"bench", {{"benchmarks", shape::scalar_or_list}, {"options", shape::map}}},
      {"collectives",
       {{"collectives", shape::scalar_or_list},
        {"launcher", shape::scalar},
        {"env", shape::map},
        {"workdir", shape::scalar},
        {"options", shape::map}}},
      {"train",
       {{"workload", shape::scalar, true},
        {"launcher", shape::scalar},
        {"env", shape::map},
        {"workdir", shape::scalar},
        {"options", shape::map}}},
      {"command",
       {{"command", shape::scalar, true},
        {"env", shape::map},
        {"workdir", shape::scalar},
        {"launcher", shape::scalar},
        {"metrics", shape::list, true},
        {"fail_on", shape::scalar_or_list}}},
      {"import",
       {{"command", shape::scalar},
        {"env", shape::map},
        {"workdir", shape::scalar},
        {"launcher", shape::scalar},
        {"format", shape::scalar, true},
        {"file", shape::scalar, true},
        {"fail_on", shape::scalar_or_list}}},
  };
  return rules;
}

metric_rule metric_of(const recipe_node& node) {
  static const std::vector<std::string> methods = {"regex", "json", "performance", "csv"};
  check_map(node,
            {{"name", shape::scalar},
             {"unit", shape::scalar},
             {"regex", shape::scalar},
             {"json", shape::scalar},
             {"pointer", shape::scalar},
             {"performance", shape::scalar},
             {"csv", shape::scalar},
             {"column", shape::scalar},
             {"higher_is_better", shape::scalar}},
            "metric");
  metric_rule m;
  m.where = node.where;
  for (const auto& method : methods) {
    if (node.find(method) == nullptr) continue;
    if (!m.method.empty()) {
      throw recipe_error(node.where, fmt::format("a metric takes one of regex, json, performance, csv; this one "
                                                 "has {} and {}",
                                                 m.method, method));
    }
    m.method = method;
  }
  if (m.method.empty()) throw recipe_error(node.where, "a metric needs one of regex, json, performance, csv");
  m.name = text_of(node.find("name")).text;
  m.unit = text_of(node.find("unit")).text;
  if (const auto* h = node.find("higher_is_better")) {
    if (h->scalar != "true" && h->scalar != "false") {
      throw recipe_error(h->where, fmt::format("higher_is_better must be true or false, not '{}'", h->scalar));
    }
    m.higher_is_better = h->scalar;
  }
  const auto need = [&](const char* key) {
    if (node.find(key) == nullptr) throw recipe_error(node.where, fmt::format("a {} metric needs '{}'", m.method, key));
    return text_of(node.find(key));
  };
  if (m.method == "regex") {
    m.pattern = text_of(node.find("regex"));
  } else if (m.method == "json") {
    m.file = text_of(node.find("json"));
    m.pointer = need("pointer");
  } else if (m.method == "csv") {
    m.file = text_of(node.find("csv"));
    m.column = need("column");
  } else if (node.find("performance")->scalar != "true") {
    throw recipe_error(node.find("performance")->where,
                       "performance takes true (read 'performance: VALUE UNIT' lines)");
  }
  if (m.method == "json" || m.method == "csv") {
    if (m.name.empty()) throw recipe_error(node.where, fmt::format("a {} metric needs 'name'", m.method));
  }
  return m;
}

recipe_step step_of(const recipe_node& node) {
  if (node.type != kind::map || node.entries.size() != 1) {
    throw recipe_error(node.where,
                       fmt::format("a step is a map with one key, its kind ({})", join(step_kinds(), ", ")));
  }
  const auto& [kind_text, body] = node.entries.front();
  const auto rules = step_rules().find(kind_text);
  if (rules == step_rules().end()) {
    throw recipe_error(body.key_where,
                       fmt::format("unknown step kind '{}' (known: {})", kind_text, join(step_kinds(), ", ")));
  }
  auto all_rules = rules->second;
  all_rules.push_back({"name", shape::scalar});
  all_rules.push_back({"timeout", shape::scalar});
  all_rules.push_back({"when", shape::scalar});
  if (kind_text != "service") all_rules.push_back({"repeat", shape::scalar});
  const auto what = kind_text + " step";
  check_map(body, all_rules, what);
  recipe_step s;
  s.kind = kind_text;
  s.where = body.key_where;
  s.name = text_of(body.find("name")).text;
  s.timeout = text_of(body.find("timeout"));
  s.when = text_of(body.find("when"));
  s.repeat = text_of(body.find("repeat"));
  s.command = text_of(body.find("command"));
  s.env = pairs_of(body.find("env"), what + "'s env");
  s.workdir = text_of(body.find("workdir"));
  s.launcher = text_of(body.find("launcher"));
  s.stop_grace = text_of(body.find("stop_grace"));
  s.options = pairs_of(body.find("options"), what + "'s options");
  s.url = text_of(body.find("url"));
  s.format = text_of(body.find("format"));
  s.file = text_of(body.find("file"));
  s.fail_on = texts_of(body.find("fail_on"), "fail_on");
  for (const auto* key : {"benchmarks", "collectives", "workload"}) {
    for (auto& t : texts_of(body.find(key), key)) s.arguments.push_back(std::move(t));
  }
  if (const auto* ready = body.find("ready")) {
    check_map(*ready,
              {{"url", shape::scalar}, {"model", shape::scalar}, {"log", shape::scalar}, {"timeout", shape::scalar}},
              "ready");
    s.ready.url = text_of(ready->find("url"));
    s.ready.model = text_of(ready->find("model"));
    s.ready.log_regex = text_of(ready->find("log"));
    s.ready.timeout = text_of(ready->find("timeout"));
    if (s.ready.url.text.empty() && s.ready.log_regex.text.empty()) {
      throw recipe_error(ready->where, "ready needs 'url' (a /v1/models check and a one-token completion) or 'log'");
    }
  }
  if (const auto* metrics = body.find("metrics")) {
    for (const auto& m : metrics->items) s.metrics.push_back(metric_of(m));
    if (s.metrics.empty()) throw recipe_error(metrics->where, "metrics lists at least one metric");
  }
  return s;
}

// `text` on one line for a message: control bytes as \n, \t or \xNN, cut after 60 bytes.
std::string printable(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < 60; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return text.size() > 60 ? out + "..." : out;
}

// A recipe's or step's name becomes a folder or file name under --results-dir: checked here.
void check_name(const std::string& name, const source_location& where, const char* what) {
  if (is_recipe_name(name)) return;
  throw recipe_error(where, fmt::format("{} '{}' cannot name a file: use letters, digits, '.', '_' and '-' (not "
                                        "'.' or '-' first), at most {} characters",
                                        what, printable(name), max_name_length));
}

// Names steps without one after their kind (serve, serve-2, ...) and rejects duplicates.
void name_steps(std::vector<recipe_step>& steps) {
  std::map<std::string, int> seen_kinds;
  std::set<std::string> names;
  for (auto& s : steps) {
    if (s.name.empty()) {
      const int n = ++seen_kinds[s.kind];
      s.name = n == 1 ? s.kind : fmt::format("{}-{}", s.kind, n);
    }
    check_name(s.name, s.where, "step name");
    if (!names.insert(s.name).second) throw recipe_error(s.where, fmt::format("two steps are named '{}'", s.name));
  }
}

}  // namespace

bool is_recipe_name(std::string_view name) {
  if (name.empty() || name.size() > max_name_length || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

const std::vector<std::string>& step_kinds() {
  static const std::vector<std::string> kinds = {"service", "serve",   "bench", "collectives",
                                                 "train",   "command", "import"};
  return kinds;
}

recipe recipe_from_node(const recipe_node& document, const std::string& path, const std::string& text) {
  check_map(document,
            {{"schema_version", shape::scalar, true},
             {"name", shape::scalar, true},
             {"description", shape::scalar},
             {"tags", shape::map},
             {"variables", shape::map},
             {"profiles", shape::map},
             {"matrix", shape::map},
             {"repeat", shape::scalar},
             {"trim", shape::scalar},
             {"fail_on", shape::scalar_or_list},
             {"steps", shape::list, true}},
            "the recipe");
  recipe r;
  r.path = path;
  r.text = text;
  const auto* version = document.find("schema_version");
  if (version->scalar != std::to_string(recipe_schema_version)) {
    throw recipe_error(version->where, fmt::format("schema_version {} is not one this build reads ({})",
                                                   version->scalar, recipe_schema_version));
  }
  r.name = document.find("name")->scalar;
  if (r.name.empty()) throw recipe_error(document.find("name")->where, "name must not be empty");
  check_name(r.name, document.find("name")->where, "the recipe's name");
  r.description = text_of(document.find("description")).text;
  r.tags = pairs_of(document.find("tags"), "tags");
  for (const auto& [key, value] : r.tags) {
    if (!is_tag_key(key)) {
      throw recipe_error(value.where, fmt::format("'{}' is not a tag name (letters, digits, '_', '-', '.')", key));
    }
  }
  for (const auto& [name, value] : pairs_of(document.find("variables"), "variables")) {
    if (!is_variable_name(name)) {
      throw recipe_error(value.where, fmt::format("'{}' is not a variable name (letters, digits, '_')", name));
    }
    r.variables[name] = {value.text, value.where};
  }
  if (const auto* profiles = document.find("profiles")) {
    for (const auto& [name, body] : profiles->entries) {
      if (body.type != kind::map) {
        throw recipe_error(body.where, fmt::format("profile '{}' must be a map of variables", name));
      }
      auto values = pairs_of(&body, fmt::format("profile '{}'", name));
      for (const auto& [variable, value] : values) {
        if (!is_variable_name(variable)) {
          throw recipe_error(value.where, fmt::format("'{}' is not a variable name (letters, digits, '_')", variable));
        }
      }
      r.profiles.emplace_back(name, std::move(values));
    }
    if (!r.profiles.empty() && r.variables.count("profile") == 0) {
      throw recipe_error(profiles->where, "profiles need a variable 'profile' naming the default one");
    }
  }
  if (const auto* matrix = document.find("matrix")) {
    for (const auto& [name, values] : matrix->entries) {
      if (!is_variable_name(name)) {
        throw recipe_error(values.key_where, fmt::format("'{}' is not a variable name (letters, digits, '_')", name));
      }
      if (values.type == kind::map) throw recipe_error(values.where, fmt::format("matrix '{}' must be a list", name));
      if (values.type == kind::scalar) r.matrix_lists_in_text.push_back(name);
      auto texts = texts_of(&values, fmt::format("matrix '{}'", name));
      if (texts.empty()) throw recipe_error(values.where, fmt::format("matrix '{}' has no values", name));
      r.matrix.emplace_back(name, std::move(texts));
    }
  }
  r.repeat = text_of(document.find("repeat"));
  r.trim = text_of(document.find("trim"));
  r.fail_on = texts_of(document.find("fail_on"), "fail_on");
  const auto* steps = document.find("steps");
  for (const auto& step : steps->items) r.steps.push_back(step_of(step));
  if (r.steps.empty()) throw recipe_error(steps->where, "steps lists at least one step");
  name_steps(r.steps);
  return r;
}

recipe load_recipe(const std::string& path) {
  const auto text = core::read_bounded_file(path, core::file_kinds::recipe);
  return recipe_from_node(parse_recipe_document(text, path), path, text);
}

}  // namespace ironbench::experiment
