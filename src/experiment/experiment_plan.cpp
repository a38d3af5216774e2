#include "experiment/experiment_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>

#include "core/redaction.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "experiment/log_pattern.hpp"
#include "experiment/recipe_limits.hpp"

namespace ironbench::experiment {
namespace {

// Runs `parse` and puts `where` in front of the usage error it throws.
template <typename Parse>
auto located(const source_location& where, Parse parse) {
  try {
    return parse();
  } catch (const usage_error& e) {
    throw recipe_error(where, e.what());
  }
}

double duration_of(const located_text& text, const variable_map& vars, double fallback, const char* what,
                   expansion_budget& budget) {
  if (text.text.empty()) return fallback;
  const auto value = expand(text.text, text.where, vars, budget);
  const double seconds = located(text.where, [&] { return parse_duration_s(value, what); });
  if (seconds > max_recipe_duration_s) {
    throw recipe_error(text.where, fmt::format("{} '{}' is longer than the {:g} h (a week) a recipe's duration may be",
                                               what, value, max_recipe_duration_s / 3600));
  }
  return seconds;
}

// A `repeat`: a whole number from 1 to max_repeat.
int repeat_of(const std::string& text, const source_location& where) {
  const auto count = located(where, [&] { return parse_integer(text, "repeat"); });
  if (count < 1) throw recipe_error(where, "repeat must be at least 1");
  if (count > max_repeat) {
    throw recipe_error(where, fmt::format("repeat {} is more than the {} a recipe may ask for", count, max_repeat));
  }
  return static_cast<int>(count);
}

planned_step plan_step(const recipe_step& s, const variable_map& vars, expansion_budget& budget) {
  const auto x = [&](const located_text& t) { return expand(t.text, t.where, vars, budget); };
  planned_step p;
  p.kind = s.kind;
  p.name = s.name;
  p.timeout_s = duration_of(s.timeout, vars, 0, "timeout", budget);
  if (!s.repeat.text.empty()) p.repeat = repeat_of(x(s.repeat), s.repeat.where);
  p.command = x(s.command);
  p.workdir = x(s.workdir);
  p.launcher = x(s.launcher);
  for (const auto& [k, v] : s.env) p.env.emplace_back(k, x(v));
  p.ready_url = x(s.ready.url);
  p.ready_model = x(s.ready.model);
  p.ready_timeout_s = duration_of(s.ready.timeout, vars, 600, "ready timeout", budget);
  p.stop_grace_s = duration_of(s.stop_grace, vars, 10, "stop_grace", budget);
  for (const auto& [k, v] : s.options) p.options.emplace_back(k, x(v));
  for (const auto& a : s.arguments) p.arguments.push_back(x(a));
  p.url = x(s.url);
  // Regexes are compiled here, so that a bad one stops the recipe before anything starts.
  const auto checked_regex = [&](const located_text& t, const char* what) {
    auto pattern = x(t);
    if (!pattern.empty()) located(t.where, [&] { return log_pattern(pattern, what); });
    return pattern;
  };
  for (const auto& m : s.metrics) {
    p.metrics.push_back({m.name, m.unit, m.method, checked_regex(m.pattern, "metric regex"), x(m.file), x(m.pointer),
                         x(m.column), m.higher_is_better == "true"});
  }
  for (const auto& f : s.fail_on) p.fail_on.push_back(checked_regex(f, "fail_on"));
  p.ready_log_regex = checked_regex(s.ready.log_regex, "ready log");
  p.format = x(s.format);
  p.file = x(s.file);
  return p;
}

// Every combination of the matrix, the first variable varying slowest.
std::vector<std::vector<std::pair<std::string, std::string>>> grid(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& matrix) {
  std::vector<std::vector<std::pair<std::string, std::string>>> points = {{}};
  for (const auto& [name, values] : matrix) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& point : points) {
      for (const auto& v : values) {
        auto p = point;
        p.emplace_back(name, v);
        next.push_back(std::move(p));
      }
    }
    points = std::move(next);
  }
  return points;
}

// The number of points is the product of the matrix variables' numbers of values: checked
// before the grid is built (recipe_limits.hpp), at the variable that passes the limit.
void check_point_count(const std::vector<std::pair<std::string, std::vector<located_text>>>& matrix,
                       const std::vector<std::pair<std::string, std::vector<std::string>>>& values) {
  double points = 1;
  std::vector<std::string> factors;
  const source_location* where = nullptr;
  for (std::size_t i = 0; i < values.size(); ++i) {
    points *= static_cast<double>(values[i].second.size());
    factors.push_back(fmt::format("{} {}", values[i].second.size(), values[i].first));
    if (where == nullptr && points > static_cast<double>(max_plan_points)) where = &matrix[i].second.front().where;
  }
  if (where == nullptr) return;
  throw recipe_error(*where, fmt::format("the matrix has {:.0f} points ({}), more than {} (the limit of points in a "
                                         "plan)",
                                         points, join(factors, " x "), max_plan_points));
}

// Whether a step runs at a point: its `when`, expanded, is true (default) or false, or
// compares two texts: "A == B", "A != B", or finds A in a comma-separated list: "A in B,C".
bool step_enabled(const recipe_step& s, const variable_map& vars, expansion_budget& budget) {
  if (s.when.text.empty()) return true;
  const auto value = expand(s.when.text, s.when.where, vars, budget);
  if (value == "true") return true;
  if (value == "false") return false;
  for (const std::string op : {" == ", " != ", " in "}) {
    const auto at = value.find(op);
    if (at == std::string::npos) continue;
    const auto left = trim_copy(value.substr(0, at));
    const auto right = value.substr(at + op.size());
    if (op == " in ") {
      const auto items = split(right, ',');
      return std::any_of(items.begin(), items.end(), [&](const std::string& item) { return trim_copy(item) == left; });
    }
    return (left == trim_copy(right)) == (op == " == ");
  }
  throw recipe_error(s.when.where,
                     fmt::format("when must be true, false, 'A == B', 'A != B' or 'A in B,C', not '{}'", value));
}

// The variables of the profile the variable `profile` names, over the recipe's own variables
// and under --set (`set_names`).
void apply_profile(const recipe& r, const std::vector<std::string>& set_names, variable_map& base,
                   expansion_budget& budget) {
  const auto name = expand_variable("profile", base, budget);
  const auto chosen =
      std::find_if(r.profiles.begin(), r.profiles.end(), [&](const auto& p) { return p.first == name; });
  if (chosen == r.profiles.end()) {
    std::vector<std::string> names;
    for (const auto& p : r.profiles) names.push_back(p.first);
    throw recipe_error(base.at("profile").where,
                       fmt::format("profile '{}' is not one of the recipe's profiles ({})", name, join(names, ", ")));
  }
  for (const auto& [variable, value] : chosen->second) {
    if (std::find(set_names.begin(), set_names.end(), variable) == set_names.end()) {
      base[variable] = {value.text, value.where};
    }
  }
}

}  // namespace

std::string shell_quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos) return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> planned_step::ironbench_arguments() const {
  static const std::map<std::string, std::string> commands = {
      {"serve", "serve"}, {"bench", "run"}, {"collectives", "collectives"}, {"train", "train"}};
  const auto command = commands.find(kind);
  if (command == commands.end()) return {};
  std::vector<std::string> args = {command->second};
  args.insert(args.end(), arguments.begin(), arguments.end());
  if (kind == "serve" && !url.empty()) {
    args.emplace_back("--base-url");
    args.push_back(url);
  }
  for (const auto& [flag, value] : options) {
    if (value == "false") continue;
    args.push_back((flag.size() == 1 ? "-" : "--") + flag);
    if (value != "true") args.push_back(value);
  }
  return args;
}

std::string planned_step::command_line() const {
  const auto args = core::redact_command_line(ironbench_arguments());
  std::string line;
  if (!args.empty()) {
    line = "ironbench";
    for (const auto& a : args) line += " " + shell_quoted(a);
  } else if (kind == "import") {
    line = (command.empty() ? "" : command + " && ") + "ironbench import " + shell_quoted(format) + " " +
           shell_quoted(file);
  } else {
    line = command;
  }
  if (!launcher.empty() && kind != "serve" && kind != "bench") line = launcher + " " + line;
  std::string environment;
  for (const auto& [k, v] : env) {
    environment += k + "=" + shell_quoted(core::names_a_secret(k) ? std::string(core::redacted_text) : v) + " ";
  }
  if (!workdir.empty())
    line = "(cd " + shell_quoted(workdir) + " && " + environment + line + ")";
  else
    line = environment + line;
  return core::redact_url(line);
}

std::string experiment_point::label() const {
  if (values.empty()) return "-";
  std::vector<std::string> parts;
  for (const auto& [k, v] : values) parts.push_back(k + "=" + v);
  return join(parts, " ");
}

const std::vector<std::string>& default_fail_on() {
  static const std::vector<std::string> patterns = {R"(Traceback \(most recent call last\))", "OutOfMemoryError",
                                                    "NCCL WARN"};
  return patterns;
}

std::pair<std::string, std::string> parse_set(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || !is_variable_name(text.substr(0, eq))) {
    throw usage_error(fmt::format("--set takes VAR=VALUE, not '{}'", text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string stable_hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

namespace {

// Each matrix variable's values, expanded; a variable in `split_matrix` (a list in one text)
// split at its commas.
std::vector<std::pair<std::string, std::vector<std::string>>> expand_matrix(
    const std::vector<std::pair<std::string, std::vector<located_text>>>& matrix,
    const std::vector<std::string>& split_matrix, const variable_map& base, expansion_budget& budget) {
  std::vector<std::pair<std::string, std::vector<std::string>>> matrix_values;
  for (const auto& [name, values] : matrix) {
    std::vector<std::string> expanded;
    for (const auto& v : values) {
      auto value = expand(v.text, v.where, base, budget);
      if (std::find(split_matrix.begin(), split_matrix.end(), name) == split_matrix.end()) {
        expanded.push_back(std::move(value));
        continue;
      }
      for (auto& part : split(value, ',')) {
        part = trim_copy(part);
        if (part.empty()) throw recipe_error(v.where, fmt::format("matrix '{}': an empty value in '{}'", name, value));
        expanded.push_back(std::move(part));
      }
    }
    matrix_values.emplace_back(name, std::move(expanded));
  }
  return matrix_values;
}

// The steps of one point, its variables set: those enabled, a command's or an import's
// fail_on the recipe's where the step has none, and a serve step without url driving the last
// service with a ready url started before it.
std::vector<planned_step> plan_point_steps(const std::vector<recipe_step>& steps, const variable_map& vars,
                                           expansion_budget& budget, const std::vector<std::string>& recipe_fail_on) {
  std::vector<planned_step> planned;
  std::string service_url;
  for (const auto& s : steps) {
    if (!step_enabled(s, vars, budget)) continue;
    auto step = plan_step(s, vars, budget);
    if (s.fail_on.empty() && (s.kind == "command" || s.kind == "import")) step.fail_on = recipe_fail_on;
    if (step.kind == "service" && !step.ready_url.empty()) service_url = step.ready_url;
    if (step.kind == "serve" && step.url.empty()) {
      if (service_url.empty())
        throw recipe_error(s.where, "a serve step needs 'url' when no service with a ready url comes before it");
      step.url = service_url;
    }
    planned.push_back(std::move(step));
  }
  return planned;
}

}  // namespace

experiment_plan plan_experiment(const recipe& r, const std::vector<std::pair<std::string, std::string>>& sets,
                                const std::string& version, const std::string& host_identity,
                                const builtin_variables& builtins) {
  auto split_matrix = r.matrix_lists_in_text;
  variable_map base = r.variables;
  std::vector<std::string> builtin_names;
  for (const auto& [name, value] : builtins) {
    if (base.emplace(name, variable_definition{value, {"built-in", 1, 1}}).second) builtin_names.push_back(name);
  }
  auto matrix = r.matrix;
  const auto defined = [&](const std::string& name) {
    if (base.count(name) != 0) return true;
    return std::any_of(r.profiles.begin(), r.profiles.end(), [&](const auto& p) {
      return std::any_of(p.second.begin(), p.second.end(), [&](const auto& v) { return v.first == name; });
    });
  };
  std::vector<std::string> set_names;
  for (const auto& [name, value] : sets) {
    const source_location where{"--set", 1, 1};
    auto in_matrix = std::find_if(matrix.begin(), matrix.end(), [&](const auto& m) { return m.first == name; });
    if (in_matrix != matrix.end()) {
      in_matrix->second = {{value, where}};
      std::erase(split_matrix, name);
    } else if (defined(name)) {
      base[name] = {value, where};
      set_names.push_back(name);
    } else {
      throw usage_error(fmt::format("--set {}: the recipe has no variable '{}'", name, name));
    }
  }
  expansion_budget budget;  // of the whole plan
  if (!r.profiles.empty()) apply_profile(r, set_names, base, budget);
  experiment_plan plan;
  plan.name = r.name;
  plan.description = r.description;
  plan.recipe_path = r.path;
  // Every variable must expand (no undefined names, no cycles), used or not.
  std::string identity = r.text + "\n";
  for (const auto& [name, def] : base) {
    const auto value = expand_variable(name, base, budget);
    plan.variables.emplace_back(name, value);
    const bool builtin = std::find(builtin_names.begin(), builtin_names.end(), name) != builtin_names.end();
    if (!builtin || base.at(name).where.file == "--set") identity += name + "=" + value + "\n";
  }
  for (const auto& [name, value] : r.tags) {
    auto text = expand(value.text, value.where, base, budget);
    if (text.find_first_of("\r\n") != std::string::npos) {
      throw recipe_error(value.where, fmt::format("tag '{}' must be one line", name));
    }
    plan.tags.emplace_back(name, std::move(text));
  }
  if (!r.repeat.text.empty())
    plan.repeat = repeat_of(expand(r.repeat.text, r.repeat.where, base, budget), r.repeat.where);
  if (!r.trim.text.empty()) {
    const auto text = expand(r.trim.text, r.trim.where, base, budget);
    plan.trim = located(r.trim.where, [&] { return parse_number(text, "trim"); });
    if (!(plan.trim >= 0 && plan.trim < 0.5)) throw recipe_error(r.trim.where, "trim must be in [0, 0.5)");
  }
  identity += fmt::format("version={}\nhost={}\n", version, host_identity);
  plan.hash = stable_hash(identity);

  const auto matrix_values = expand_matrix(matrix, split_matrix, base, budget);
  check_point_count(matrix, matrix_values);
  for (const auto& [name, values] : matrix_values) plan.matrix_sizes.emplace_back(name, values.size());
  std::vector<std::string> recipe_fail_on = default_fail_on();
  if (!r.fail_on.empty()) recipe_fail_on.clear();
  for (const auto& f : r.fail_on) recipe_fail_on.push_back(expand(f.text, f.where, base, budget));
  int index = 0;
  auto vars = base;  // every point sets every matrix variable
  for (const auto& values : grid(matrix_values)) {
    experiment_point point;
    point.index = index++;
    point.values = values;
    std::string point_identity = plan.hash;
    for (const auto& [name, value] : values) {
      vars[name] = {value, {"matrix", 1, 1}};
      point_identity += "\n" + name + "=" + value;
    }
    point.key = stable_hash(point_identity);
    point.steps = plan_point_steps(r.steps, vars, budget, recipe_fail_on);
    plan.points.push_back(std::move(point));
  }
  return plan;
}

}  // namespace ironbench::experiment
