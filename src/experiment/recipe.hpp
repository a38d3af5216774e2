// An experiment recipe (docs/experiments.md): what to start, what to measure, over which grid
// of variables, how often. recipe_from_node checks a document's shape (known keys, types)
// and reads it; strings keep their ${variables} until a point is planned (experiment_plan.hpp).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "experiment/recipe_node.hpp"
#include "experiment/variables.hpp"

namespace ironbench::experiment {

/// The recipe format this build reads.
inline constexpr int recipe_schema_version = 1;

/// A string of the recipe and where it was written.
struct located_text {
  std::string text;
  source_location where;
};

/// How one metric is read from a command step's output.
struct metric_rule {
  std::string name;  ///< the metric's name in the results (from the regex group for "regex")
  std::string unit;
  std::string method;    ///< regex, json, performance, csv
  located_text pattern;  ///< regex: with named groups, each a metric (or the group "value")
  located_text file;     ///< json, csv: the file the command wrote (relative to its directory)
  located_text pointer;  ///< json: a JSON pointer, "/metrics/throughput"
  located_text column;   ///< csv: the column's header
  std::string higher_is_better = "true";
  source_location where;
};

/// How a service shows it is ready.
struct readiness_rule {
  located_text url;        ///< base URL: GET URL/v1/models must list `model`, then a 1-token completion
  located_text model;      ///< the served model's name ("" with url: the first model listed)
  located_text log_regex;  ///< alternatively (or also): a line of its log that matches
  located_text timeout;    ///< duration, default 600s
};

/// One step of a recipe.
struct recipe_step {
  std::string kind;  ///< service, serve, bench, collectives, train, command, import
  std::string name;  ///< unique in the recipe; default KIND (KIND-2, ... when repeated)
  source_location where;
  located_text timeout;  ///< per step; "" = the kind's default
  located_text when;     ///< once expanded "true" (default), "false", "A == B" or "A != B": whether it runs
  located_text repeat;   ///< times per point, overriding the recipe's repeat
  // Programs (service, command, import).
  located_text command;  ///< run through /bin/sh -c
  std::vector<std::pair<std::string, located_text>> env;
  located_text workdir;
  located_text launcher;  ///< prefix: "mpirun -np 8", "srun", "docker run --rm img" (service, command, import,
                          ///< collectives, train)
  // service
  readiness_rule ready;
  located_text stop_grace;  ///< SIGTERM, then SIGKILL after this (default 10s)
  // serve, bench, collectives, train: ironbench's own options, flag without dashes -> value
  std::vector<std::pair<std::string, located_text>> options;
  std::vector<located_text>
      arguments;     ///< positional: benchmarks of bench, collectives of collectives, the workload of train
  located_text url;  ///< serve: --base-url (default: the last service's ready.url)
  // command
  std::vector<metric_rule> metrics;
  std::vector<located_text> fail_on;  ///< regexes of the log that fail the step
  // import
  located_text format;  ///< a name of the importer table
  located_text file;    ///< the output to import
};

/// A recipe as read from its file.
struct recipe {
  int schema_version = recipe_schema_version;
  std::string name;
  std::string description;
  std::string path;  ///< the file
  std::string text;  ///< the file's text (hashed into the experiment's identity)
  std::vector<std::pair<std::string, located_text>> tags;
  variable_map variables;
  /// Named sets of variables (`profiles: {gpu: {...}, cpu: {...}}`); the variable `profile`
  /// picks the one that applies, over `variables:` (and under --set).
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, located_text>>>> profiles;
  /// The grid: each variable with its values, in file order (the first varies slowest).
  std::vector<std::pair<std::string, std::vector<located_text>>> matrix;
  /// The matrix variables written as one string rather than a list: their value, once
  /// expanded, is split at commas ("${concurrencies}" with concurrencies "4,8,16").
  std::vector<std::string> matrix_lists_in_text;
  located_text repeat;                ///< whole number >= 1 (default 1)
  located_text trim;                  ///< fraction cut from each end for the trimmed mean (default 0.1)
  std::vector<located_text> fail_on;  ///< default failure patterns of command and import steps
  std::vector<recipe_step> steps;
};

/// The longest name a recipe or a step may have.
inline constexpr std::size_t max_name_length = 100;

/// Whether `name` may name a recipe or a step: it becomes a folder or file name under
/// --results-dir (NAME-HASH/, STEP-N.log), so letters, digits, '.', '_' and '-' only, not
/// starting with '.' or '-' (no "..", no '/', no newline), at most max_name_length characters.
[[nodiscard]] bool is_recipe_name(std::string_view name);

/// The step kinds, in the order docs/experiments.md lists them.
[[nodiscard]] const std::vector<std::string>& step_kinds();

/// Checks the shape of `document` (schema_version, known keys per level and step kind, the
/// type of every value) and reads it. Throws recipe_error at the offending text.
[[nodiscard]] recipe recipe_from_node(const recipe_node& document, const std::string& path, const std::string& text);

/// Reads and checks the recipe file at `path`.
[[nodiscard]] recipe load_recipe(const std::string& path);

}  // namespace ironbench::experiment
