// A recipe's variables: `${name}` in any string of a recipe is replaced by the variable's
// value, which may itself use other variables. Values come from the recipe's `variables:`,
// then the matrix point, then --set (each overriding the one before). "$$" is a literal "$".
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "experiment/recipe_node.hpp"

namespace ironbench::experiment {

/// A variable's value as written (unexpanded) and where it was set.
struct variable_definition {
  std::string value;
  source_location where;
};

/// Variables by name.
using variable_map = std::map<std::string, variable_definition>;

/// Whether `name` is a valid variable name: a letter or '_', then letters, digits or '_'.
[[nodiscard]] bool is_variable_name(const std::string& name);

/// The names `text` refers to with ${...}, in order. Throws recipe_error at `where` for an
/// unterminated "${" or a malformed name.
[[nodiscard]] std::vector<std::string> referenced_variables(const std::string& text, const source_location& where);

/// The work of the expansions that share it (those of one plan), bounded by recipe_limits.hpp.
struct expansion_budget {
  std::size_t references = 0;  ///< ${name} replaced so far
  std::size_t bytes = 0;       ///< bytes of text produced so far, a nested value at every level
};

/// `text` (written at `where`) with every ${name} replaced, recursively. Throws recipe_error:
/// at `where` for an undefined variable ("undefined variable 'x'"), at a definition for a
/// cycle ("variable 'a' refers to itself: a -> b -> a"); at the text being expanded when the
/// value would pass max_expanded_value_bytes, or `budget` max_plan_expansion_references or
/// max_plan_expansion_bytes (recipe_limits.hpp), before the text grows further.
[[nodiscard]] std::string expand(const std::string& text, const source_location& where, const variable_map& variables,
                                 expansion_budget& budget);
/// expand() with a budget of its own.
[[nodiscard]] std::string expand(const std::string& text, const source_location& where, const variable_map& variables);

/// The value of variable `name` expanded (a cycle through it names it first).
[[nodiscard]] std::string expand_variable(const std::string& name, const variable_map& variables,
                                          expansion_budget& budget);
/// expand_variable() with a budget of its own.
[[nodiscard]] std::string expand_variable(const std::string& name, const variable_map& variables);

}  // namespace ironbench::experiment
