// `ironbench experiment run`: every point of a plan in turn, each measured `repeat` times and
// stored as an ordinary run (results database and a JSON file), tagged with the experiment,
// its hash, the point's key, its matrix values and the recipe's tags, so that `compare` and
// `report` read it like any run. A point that fails is stored with a failed case (the reason
// and the log lines that show it) and the next point runs; Ctrl-C stops the services, stores
// what the current point measured as interrupted, and ends. Points already stored as done for
// the same experiment hash are skipped (resume) unless forced.
#pragma once

#include <atomic>
#include <ostream>
#include <string>
#include <vector>

#include "experiment/experiment_plan.hpp"
#include "experiment/workload_table.hpp"
#include "session/live_host.hpp"

namespace ironbench::experiment {

/// How to run an experiment.
struct experiment_settings {
  bool force = false;                             ///< run points already stored as done again
  std::string results_dir = "ironbench-results";  ///< logs and JSON under RESULTS_DIR/experiments/NAME-HASH/
  std::string database;                           ///< "" = results::default_database_path()
  std::vector<std::string> argv;                  ///< the command line, recorded in every point's run
  std::string ironbench_path;                     ///< the executable collectives and train steps run
};

/// What happened.
struct experiment_outcome {
  int done = 0;     ///< points measured and stored
  int failed = 0;   ///< points stored as failed
  int skipped = 0;  ///< points already stored (resume)
  int invalid = 0;  ///< points measured with an invalid case
  bool interrupted = false;
  std::string folder;  ///< RESULTS_DIR/experiments/NAME-HASH
  std::string report;  ///< its HTML report (FOLDER/report.html)
};

/// The tag names every point's run carries besides the recipe's tags and its matrix values.
inline constexpr const char* experiment_tag = "experiment";
inline constexpr const char* experiment_hash_tag = "experiment_hash";
inline constexpr const char* experiment_point_tag = "experiment_point";
inline constexpr const char* experiment_outcome_tag = "experiment_outcome";  ///< done, failed, interrupted

/// Runs `plan` on `host`. Progress goes to `console`. Throws usage_error before starting when
/// the results folder or database cannot be used.
[[nodiscard]] experiment_outcome run_experiment(const experiment_plan& plan, const experiment_settings& settings,
                                                const workload_table& workloads, const session::live_host& host,
                                                const std::atomic<bool>& cancel, std::ostream& console);

/// The stored run id of `point` of the experiment with `hash` that finished (outcome done), or
/// 0 when there is none.
[[nodiscard]] std::int64_t stored_point(const std::string& database, const std::string& hash,
                                        const std::string& point_key);

}  // namespace ironbench::experiment
