// The workloads `ironbench experiment run` measures in its own process, made from the commands'
// own option sets: a recipe's serve step takes exactly `ironbench serve`'s flags, a bench step
// `ironbench run`'s. The rows are defined next to their commands (serve_command.cpp,
// run_command.cpp); the table is experiment_workloads().
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "experiment/workload_table.hpp"

namespace ironbench::cli {

/// `ironbench serve` as an experiment step.
[[nodiscard]] experiment::in_process_workload serve_workload();
/// `ironbench run` as an experiment step (kind "bench").
[[nodiscard]] experiment::in_process_workload bench_workload();

/// The table: every in-process workload.
[[nodiscard]] experiment::workload_table experiment_workloads();

/// Parses a step's `arguments` with `command`'s options (set up on `app`). The output options
/// (--json, --csv, --md, --results-dir, --db, --tag, --no-save) are refused: an experiment
/// stores its points itself. usage_error "ironbench NAME: MESSAGE" otherwise.
void parse_step_arguments(CLI::App& app, const std::vector<std::string>& arguments, const std::string& name);

/// A step's `arguments` parsed into a command's `Arguments` by its `add_options`.
template <typename Arguments>
[[nodiscard]] std::unique_ptr<Arguments> parse_step(const std::vector<std::string>& arguments, const std::string& name,
                                                    void (*add_options)(CLI::App&, Arguments&)) {
  auto parsed = std::make_unique<Arguments>();
  CLI::App app("ironbench " + name, name);
  add_options(app, *parsed);
  parse_step_arguments(app, arguments, name);
  return parsed;
}

}  // namespace ironbench::cli
