// One HTML report per experiment (report/html_report.hpp): the environment, every point with
// its matrix values and outcome, the failures with their log lines, charts of each metric
// against each matrix variable, and the cases. Built from the results database, so a resumed
// experiment's report holds the points stored by earlier invocations too.
#pragma once

#include <string>

#include "experiment/experiment_plan.hpp"

namespace ironbench::results {
class results_store;
}

namespace ironbench::experiment {

/// Writes the report of `plan` (its newest stored run of each point) to `path`.
void write_experiment_report(const experiment_plan& plan, const results::results_store& store, const std::string& path);

}  // namespace ironbench::experiment
