// The experiments in the results database, for `ironbench experiment list`: every run tagged
// with an experiment, grouped by the experiment's hash; a point's state is its newest run's.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "experiment/experiment_plan.hpp"

namespace ironbench::experiment {

/// One experiment as stored.
struct stored_experiment {
  std::string name, hash, host;
  std::string first_start, last_start;  ///< of its runs (ISO 8601, UTC)
  int runs = 0;
  int done = 0, failed = 0, interrupted = 0;  ///< points by their newest run's outcome
};

/// Every stored experiment, the most recently run first.
[[nodiscard]] std::vector<stored_experiment> stored_experiments(const std::string& database);

/// For --dry-run: each point of `plan` and whether a run would skip it (stored as done for
/// this hash, unless `force`).
void write_stored_points(const experiment_plan& plan, const std::string& database, bool force, std::ostream& out);

/// A table of `experiments` ("no experiment stored in DB" when empty).
void write_experiment_list(const std::vector<stored_experiment>& experiments, const std::string& database,
                           std::ostream& out);

}  // namespace ironbench::experiment
