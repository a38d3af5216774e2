// ironbench train as one call: plans a train_request (device, settings, batch sizes and rank
// counts, this rank's place in the MPI job), then trains every case on one device or
// data-parallel over the job's ranks. Every rank calls run_training_sweep; rank 0 gets what
// its run reports.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/watchdog.hpp"
#include "core/case_monitor.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "session/live_host.hpp"
#include "train/train_plan.hpp"
#include "train/training_outcome.hpp"

namespace ironbench::train {

struct train_sweep_outcome;

/// What a training sweep reports while it runs (any may be empty).
struct train_callbacks {
  /// Once the request passed its checks, on every rank, before anything is measured.
  std::function<void(int rank)> on_ready;
  /// Rank 0, as a case starts: "mlp  batch 8 on 1 rank".
  std::function<void(const std::string& label)> on_case;
  /// Rank 0, after each step (warm-up steps first) of the case with `settings`.
  std::function<void(const train_settings& settings, int step, const step_record& record)> on_step;
  /// Rank 0: telemetry of each case's device (telemetry::gpu_case_monitors).
  core::case_monitor_factory monitors;
  /// Rank 0 when the run hangs or loses a rank, or the lowest rank alive when rank 0 died (on
  /// the watchdog's thread, before the process ends): this rank's outcome so far (rank 0: the
  /// cases finished; settings) and the ranks the job waits for.
  std::function<void(const train_sweep_outcome& so_far, const comm::hang_verdict& verdict)> rank0_on_hang;
};

/// What a rank ends with; on rank 0 everything its run needs.
struct train_sweep_outcome {
  int rank = 0;
  bool distributed = false;              ///< under mpirun, or a --scaling sweep
  std::vector<core::case_result> cases;  ///< rank 0, with scaling efficiency
  json telemetry_series = json::array();
  std::vector<std::string> rank_descriptions;  ///< distributed: every rank's (comm::rank_description)
  session::live_host host;
  core::device_info measured;  ///< the training device as ironbench enumerates it
  std::chrono::system_clock::time_point start;
  json settings;             ///< the run's settings (training_settings_json)
  bool interrupted = false;  ///< `cancel` stopped the sweep (on any rank)
  /// Keeps ending the process when writing the results makes no progress for the timeout.
  std::shared_ptr<comm::watchdog> watchdog;
};

/// Plans and runs `request`. Throws usage_error for a request that cannot run (unknown
/// workload, model or device, a missing GPU, rank counts the job lacks, no MPI for a
/// data-parallel run). When `cancel` becomes true the sweep stops at the next step on every
/// rank and keeps what it measured.
[[nodiscard]] train_sweep_outcome run_training_sweep(const train_request& request, const train_callbacks& callbacks,
                                                     const std::atomic<bool>* cancel = nullptr);

}  // namespace ironbench::train
