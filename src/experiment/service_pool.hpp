// The services of an experiment (vLLM, SGLang, llama.cpp's server, serve-sim ...): started
// where a point's steps name them, waited for until ready, watched while the later steps run,
// and stopped (SIGTERM to the process group, SIGKILL after the grace period) when a point needs
// a different one, when a point fails, at the end and on Ctrl-C. A point whose service step is
// the same as the previous point's (same command, environment, directory, launcher, readiness)
// keeps the running service: a model is loaded once per sweep.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "experiment/child_process.hpp"
#include "experiment/experiment_plan.hpp"
#include "experiment/orphan_services.hpp"
#include "experiment/step_failure.hpp"

namespace ironbench::experiment {

class service_pool {
 public:
  service_pool() = default;
  /// Records its running services in the file `record_path` (orphan_services.hpp) for a later
  /// run to stop, should this one end without stopping them.
  explicit service_pool(std::string record_path) : record_(std::move(record_path)) {}
  service_pool(const service_pool&) = delete;
  service_pool& operator=(const service_pool&) = delete;
  ~service_pool();

  /// Stops every running service that `steps` (a point's) do not start with the same settings.
  void keep_only(const std::vector<planned_step>& steps);
  /// Makes the service of `step` run and be ready: keeps a running one of the same settings,
  /// else starts it with its log at `log_path` and polls readiness (service_readiness.hpp) until
  /// its ready timeout. Throws step_failure when its ready url's address already answers before
  /// it starts (another server would be measured), when it exits or is not ready in time (with
  /// its log's last 50 lines), step_interrupted when `cancel` becomes true, error when it cannot
  /// be started. Every service runs with a tag of its own (process_tag.hpp): stopping it stops
  /// every process it started, in its process group or not. Says what it does on `console`.
  void ensure_ready(const planned_step& step, const std::string& log_path, const std::atomic<bool>& cancel,
                    std::ostream& console);
  /// A service that has exited since it became ready, as the failure of the step that was
  /// running ("service 'engine' exited (exit status 1) during step 'serve'"); the service
  /// leaves the pool. nullopt while every service runs.
  [[nodiscard]] std::optional<step_failure> casualty(const std::string& running_step);
  /// Stops every service; nothing they started is left running.
  void stop_all();
  /// How many services run.
  [[nodiscard]] std::size_t size() const { return running_.size(); }

 private:
  struct service {
    std::string name, identity, tag;
    std::unique_ptr<child_process> process;
  };
  /// Stops `s` and removes it from the record.
  void stop(service& s);
  std::vector<service> running_;
  service_record record_{""};
};

/// The lines of a service's or command's log shown with a failure.
inline constexpr std::size_t failure_log_lines = 50;

}  // namespace ironbench::experiment
