// The workloads an experiment runs inside its own process (serve, bench): one row per step
// kind, with a check of the step's options before anything starts and the measurement itself.
// The command line fills the table from its commands' own option sets
// (cli/experiment_workloads.cpp), so a recipe's `options:` are exactly the command's flags.
#pragma once

#include <atomic>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "experiment/experiment_plan.hpp"

namespace ironbench::experiment {

/// One in-process workload.
struct in_process_workload {
  std::string kind;  ///< the step kind: "serve", "bench"
  /// Throws usage_error when `arguments` (the command's flags and positionals, without the
  /// command's name) would not run.
  std::function<void(const std::vector<std::string>& arguments)> check;
  /// Measures with `arguments`; the run's cases, settings and devices (its provenance is the
  /// experiment's). What the command would print goes to `log`. Returns early, with what was
  /// measured, once `cancel` is true.
  std::function<core::run_result(const std::vector<std::string>& arguments, const std::atomic<bool>& cancel,
                                 std::ostream& log)>
      measure;
};

using workload_table = std::vector<in_process_workload>;

/// The row of `kind`, or nullptr.
[[nodiscard]] const in_process_workload* find_workload(const workload_table& table, const std::string& kind);

/// Checks the options of every in-process step of every point of `plan`, before anything
/// starts: usage_error "RECIPE: step 'serve' of point 2 (concurrency=8): ironbench serve: ...".
void check_workload_options(const experiment_plan& plan, const workload_table& table);

}  // namespace ironbench::experiment
