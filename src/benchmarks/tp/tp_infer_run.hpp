// tp_infer: dstack's toy tensor-parallel inference (a column-sharded linear layer, an
// all_gather, a replicated linear layer) on every rank of an MPI job, against the same model
// on a single device. Every rank calls run_tp_infer; rank 0 gets what its run reports.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/tp/tp_infer_settings.hpp"
#include "comm/collective_backends.hpp"
#include "comm/watchdog.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "session/live_host.hpp"

namespace ironbench::benchmarks {

/// The rows of comm's backend table that tp_infer takes (auto, mpi, nccl, rccl): --backend's
/// help text and its checks come from them.
[[nodiscard]] std::vector<comm::collective_backend_kind> tp_infer_backends();

struct tp_infer_outcome;

/// What run_tp_infer reports while it runs (any may be empty). The first two are called on
/// every rank.
struct tp_infer_callbacks {
  /// Once the settings passed every check against the job, before anything is measured (the
  /// place to prepare where results go).
  std::function<void(int rank)> on_ready;
  /// Each step as it starts: "tp_infer batch 128 hidden 1024 on 2 ranks", ...
  std::function<void(const std::string& step)> on_progress;
  /// Rank 0 when the watchdog ends a hang or a rank died, or the lowest rank alive when rank 0
  /// died (on the watchdog's thread, before the process exits): what this rank measured so far
  /// (rank 0: the finished cases and rows; the settings once known) and the verdict on the
  /// ranks the job waits for, to write the run. Called on whichever rank reports.
  std::function<void(const tp_infer_outcome& so_far, const comm::hang_verdict& verdict)> rank0_on_hang;
};

/// One row of the console table: a case measured tensor-parallel and on one device.
struct tp_infer_row {
  std::int64_t batch = 0, hidden = 0;
  int ranks = 1;
  double tp_latency_s = 0, tp_gather_s = 0, single_latency_s = 0;
  bool ok = true;  ///< both outputs verified
};

/// What a rank ends with; on rank 0 everything its run needs.
struct tp_infer_outcome {
  int rank = 0;
  int ranks = 1;
  std::vector<core::case_result> cases;        ///< rank 0: tensor_parallel then single_device, per size
  std::vector<tp_infer_row> rows;              ///< rank 0: one per size
  std::vector<std::string> rank_descriptions;  ///< rank 0: every rank's (comm::rank_description)
  session::live_host host;
  core::device_info measured;  ///< this rank's device (a GPU, or the CPU)
  std::chrono::system_clock::time_point start;
  json settings;             ///< the run's settings
  std::string collectives;   ///< what gathers, as in settings.backend
  std::string compute;       ///< what computes, as in settings.compute
  bool interrupted = false;  ///< `cancel` stopped the sweep early (on every rank)
  /// Keeps ending the process when writing the results makes no progress for the timeout.
  std::shared_ptr<comm::watchdog> watchdog;
};

/// Runs `settings` on every rank of the MPI job (MPI_COMM_WORLD). Throws usage_error where
/// the build has no MPI, the backend is unknown or missing from the build, or the sizes do not
/// fit the job. When `cancel` becomes true on any rank the sweep stops after the case at hand.
[[nodiscard]] tp_infer_outcome run_tp_infer(const tp_infer_settings& settings, const tp_infer_callbacks& callbacks = {},
                                            const std::atomic<bool>* cancel = nullptr);

/// The console report: one line saying how it ran, then the table of `outcome.rows`.
void write_tp_infer_console(const tp_infer_outcome& outcome, const tp_infer_settings& settings, std::ostream& out);

}  // namespace ironbench::benchmarks
