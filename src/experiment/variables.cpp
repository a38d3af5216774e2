#include "experiment/variables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "experiment/recipe_limits.hpp"

namespace ironbench::experiment {
namespace {

// One piece of a string: literal text, or a variable's name.
struct piece {
  bool variable = false;
  std::string text;
};

std::vector<piece> split_references(const std::string& text, const source_location& where) {
  std::vector<piece> pieces;
  std::string literal;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      literal += text[i];
      continue;
    }
    if (text[i + 1] == '$') {
      literal += '$';
      ++i;
      continue;
    }
    if (text[i + 1] != '{') {
      literal += text[i];
      continue;
    }
    const auto close = text.find('}', i + 2);
    if (close == std::string::npos) throw recipe_error(where, fmt::format("unterminated '${{' in '{}'", text));
    const auto name = text.substr(i + 2, close - i - 2);
    if (!is_variable_name(name)) {
      throw recipe_error(where, fmt::format("'${{{}}}' is not a variable name (letters, digits, '_')", name));
    }
    if (!literal.empty()) pieces.push_back({false, std::move(literal)});
    literal.clear();
    pieces.push_back({true, name});
    i = close;
  }
  if (!literal.empty()) pieces.push_back({false, std::move(literal)});
  return pieces;
}

// Appends `part` to `out`, within the bounds of one value and of the budget.
void append(std::string& out, const std::string& part, const source_location& where, expansion_budget& budget) {
  if (out.size() + part.size() > max_expanded_value_bytes) {
    throw recipe_error(where, fmt::format("a value expands to more than {} (the limit of an expanded value)",
                                          core::limit_text(max_expanded_value_bytes)));
  }
  budget.bytes += part.size();
  if (budget.bytes > max_plan_expansion_bytes) {
    throw recipe_error(where, fmt::format("the recipe's variables expand to more than {} of text (the limit of "
                                          "a plan's expansion)",
                                          core::limit_text(max_plan_expansion_bytes)));
  }
  out += part;
}

std::string expand_with_path(const std::string& text, const source_location& where, const variable_map& variables,
                             std::vector<std::string>& path, expansion_budget& budget) {
  std::string out;
  for (const auto& p : split_references(text, where)) {
    if (!p.variable) {
      append(out, p.text, where, budget);
      continue;
    }
    if (++budget.references > max_plan_expansion_references) {
      throw recipe_error(where, fmt::format("the recipe's variables expand more than {} references (the limit of a "
                                            "plan's expansion)",
                                            max_plan_expansion_references));
    }
    const auto found = variables.find(p.text);
    if (found == variables.end()) throw recipe_error(where, fmt::format("undefined variable '{}'", p.text));
    if (std::find(path.begin(), path.end(), p.text) != path.end()) {
      std::string chain;
      const auto first = std::find(path.begin(), path.end(), p.text);
      for (auto it = first; it != path.end(); ++it) chain += *it + " -> ";
      chain += p.text;
      throw recipe_error(variables.at(p.text).where, fmt::format("variable '{}' refers to itself: {}", p.text, chain));
    }
    path.push_back(p.text);
    append(out, expand_with_path(found->second.value, found->second.where, variables, path, budget), where, budget);
    path.pop_back();
  }
  return out;
}

}  // namespace

bool is_variable_name(const std::string& name) {
  if (name.empty() || (std::isalpha(static_cast<unsigned char>(name[0])) == 0 && name[0] != '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

std::vector<std::string> referenced_variables(const std::string& text, const source_location& where) {
  std::vector<std::string> names;
  for (const auto& p : split_references(text, where)) {
    if (p.variable) names.push_back(p.text);
  }
  return names;
}

std::string expand(const std::string& text, const source_location& where, const variable_map& variables,
                   expansion_budget& budget) {
  std::vector<std::string> path;
  return expand_with_path(text, where, variables, path, budget);
}

std::string expand(const std::string& text, const source_location& where, const variable_map& variables) {
  expansion_budget budget;
  return expand(text, where, variables, budget);
}

std::string expand_variable(const std::string& name, const variable_map& variables, expansion_budget& budget) {
  std::vector<std::string> path = {name};
  const auto& def = variables.at(name);
  return expand_with_path(def.value, def.where, variables, path, budget);
}

std::string expand_variable(const std::string& name, const variable_map& variables) {
  expansion_budget budget;
  return expand_variable(name, variables, budget);
}

}  // namespace ironbench::experiment
