// A recipe file as a tree of scalars, maps and sequences, each node knowing where it was
// written (file, line, column), so that every error can point at the text that caused it.
// The YAML library stays behind load_recipe_document; the rest of experiment/ reads this tree.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace ironbench::experiment {

/// Where something was written; line and column count from 1.
struct source_location {
  std::string file;
  int line = 0;
  int column = 0;
};

/// "FILE:LINE:COLUMN".
[[nodiscard]] std::string to_string(const source_location& where);

/// A usage error about a recipe: "FILE:LINE:COLUMN: MESSAGE" (exit code 2).
[[nodiscard]] usage_error recipe_error(const source_location& where, const std::string& message);

struct recipe_entry;

/// One node of the document.
struct recipe_node {
  enum class kind { null, scalar, map, sequence };
  kind type = kind::null;
  std::string scalar;  ///< the text of a scalar, as written (quotes removed)
  /// A map's entries in file order: key and value (the key's location is the entry's).
  std::vector<recipe_entry> entries;
  std::vector<recipe_node> items;  ///< a sequence's items
  source_location where;
  source_location key_where;  ///< for a map entry's value: where its key was written

  /// The entry `key` of a map, or nullptr.
  [[nodiscard]] const recipe_node* find(const std::string& key) const;
};

/// A map's entry: its key and its value.
struct recipe_entry {
  std::string key;
  recipe_node value;
};

/// "scalar", "map", "list" or "nothing", for messages.
[[nodiscard]] const char* kind_name(recipe_node::kind type);

/// Parses YAML `text` read from `file`, expanding its aliases. Throws recipe_error on a syntax
/// error or a duplicate key, at its location, and when the expanded document passes one of the
/// bounds of recipe_limits.hpp (nodes, text, depth), before it is built further.
[[nodiscard]] recipe_node parse_recipe_document(const std::string& text, const std::string& file);

}  // namespace ironbench::experiment
