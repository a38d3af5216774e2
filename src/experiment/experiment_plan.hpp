// An experiment's plan: its points (one per combination of the matrix), each with every
// string of its steps expanded and every number and duration checked, so that a recipe that
// cannot run fails before anything starts. `ironbench experiment plan` prints it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "experiment/recipe.hpp"

namespace ironbench::experiment {

/// A metric rule with its strings expanded.
struct planned_metric {
  std::string name, unit, method, pattern, file, pointer, column;
  bool higher_is_better = true;
};

/// A step of one point, expanded.
struct planned_step {
  std::string kind, name;
  double timeout_s = 0;  ///< 0: none
  int repeat = 0;        ///< times per point; 0: the recipe's repeat
  std::string command, workdir, launcher;
  std::vector<std::pair<std::string, std::string>> env;
  // service
  std::string ready_url, ready_model, ready_log_regex;
  double ready_timeout_s = 600;
  double stop_grace_s = 10;
  // ironbench's own workloads
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::string> arguments;
  std::string url;
  // command, import
  std::vector<planned_metric> metrics;
  std::vector<std::string> fail_on;
  std::string format, file;

  /// The ironbench argv of serve, bench, collectives and train (without the program name),
  /// e.g. {"serve", "--base-url", "http://...", "--max-concurrency", "8"}; options whose value
  /// is "true" become bare flags and "false" ones are left out.
  [[nodiscard]] std::vector<std::string> ironbench_arguments() const;
  /// What the step runs, as a shell would show it.
  [[nodiscard]] std::string command_line() const;
};

/// One point of the grid.
struct experiment_point {
  int index = 0;                                            ///< 0-based, in plan order
  std::vector<std::pair<std::string, std::string>> values;  ///< the matrix variables' values
  std::string key;                                          ///< identity within the experiment (hash)
  std::vector<planned_step> steps;
  /// "concurrency=8 input=1024" (or "-" without a matrix).
  [[nodiscard]] std::string label() const;
};

/// The whole plan.
struct experiment_plan {
  std::string name, description, recipe_path;
  std::string hash;  ///< recipe text, resolved variables, ironbench version, host identity
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<std::pair<std::string, std::string>>
      variables;  ///< every variable's resolved value (matrix ones excluded)
  int repeat = 1;
  double trim = 0.1;
  /// Each matrix variable with its number of values (their product is points.size(), at most
  /// max_plan_points of recipe_limits.hpp).
  std::vector<std::pair<std::string, std::size_t>> matrix_sizes;
  std::vector<experiment_point> points;
};

/// The log patterns that fail command and import steps when a recipe names none (fail_on):
/// a Python traceback, an out-of-memory error, an NCCL warning.
[[nodiscard]] const std::vector<std::string>& default_fail_on();

/// Parses "VAR=VALUE" of --set; usage_error otherwise.
[[nodiscard]] std::pair<std::string, std::string> parse_set(const std::string& text);

/// Variables every recipe has unless it defines them: "ironbench", the path of the running
/// executable (for services such as `${ironbench} serve-sim`). Left out of the hash.
using builtin_variables = std::vector<std::pair<std::string, std::string>>;

/// Plans `r` with `sets` (--set; a matrix variable set this way takes that one value) for a
/// host described by `host_identity` (mixed into the hash with `version`). Throws recipe_error
/// for undefined or cyclic variables, bad numbers or durations, a profile the recipe does not
/// have, and for a plan past a bound of recipe_limits.hpp (an expanded value's length, the
/// expansion's references and text, the number of points), before the memory is spent;
/// usage_error for a --set of a variable the recipe does not have.
[[nodiscard]] experiment_plan plan_experiment(const recipe& r,
                                              const std::vector<std::pair<std::string, std::string>>& sets,
                                              const std::string& version, const std::string& host_identity,
                                              const builtin_variables& builtins = {});

/// `word` as a POSIX shell reads it as one word: unchanged when safe, else in single quotes.
[[nodiscard]] std::string shell_quoted(const std::string& word);

/// A stable 64-bit FNV-1a hash of `text`, as 16 hex digits.
[[nodiscard]] std::string stable_hash(const std::string& text);

}  // namespace ironbench::experiment
