// One measuring step of an experiment point, run once: ironbench's own workloads (serve and
// bench in this process, collectives and train as `ironbench` child processes under their
// launcher, read back from their JSON), an external command with its metric rules, or a tool
// whose output an importer reads. While it runs, the point's services are watched: one that
// exits fails the step at once.
#pragma once

#include <atomic>
#include <ostream>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "experiment/experiment_plan.hpp"
#include "experiment/service_pool.hpp"
#include "experiment/workload_table.hpp"

namespace ironbench::experiment {

/// What every step of a point shares.
struct step_environment {
  const workload_table* workloads = nullptr;
  std::string ironbench_path;  ///< the executable collectives and train steps run
  std::string log_dir;         ///< the point's folder: step logs and JSON outputs
  service_pool* services = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  std::ostream* console = nullptr;
  std::string device;  ///< the device id given to command and import cases
};

/// What one run of a step measured.
struct step_output {
  std::vector<core::case_result> cases;
  json settings = nullptr;  ///< the workload's measurement settings (ironbench workloads)
  std::vector<core::device_info> devices;
};

/// Runs `step` (not a service) once; `attempt` (1-based repeat) names its log and files.
/// Command and import steps without a workdir run in the point's folder; every program a step
/// starts has IRONBENCH_POINT_DIR, the point's folder, in its environment.
/// Throws step_failure (non-zero exit, a fail_on pattern in its output, a missing metric,
/// its timeout, a service that exited, an output that cannot be read), step_interrupted
/// when the environment's cancel flag becomes true.
[[nodiscard]] step_output run_measuring_step(const planned_step& step, int attempt, const step_environment& env);

}  // namespace ironbench::experiment
