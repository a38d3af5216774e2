// A whole `collectives` run on one rank of an MPI job: the sweeps planned from the lists of
// collectives, types and operators, the backend chosen from the table, each rank of this
// process given its device (and with several ranks per process its own thread), and every
// trial swept. Returns what rank 0 reports; no CLI types.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "comm/collective_sweep.hpp"
#include "comm/collectives_partial.hpp"
#include "comm/hang_culprits.hpp"
#include "comm/injected_fault.hpp"
#include "comm/watchdog.hpp"
#include "core/device_info.hpp"
#include "session/live_host.hpp"

namespace ironbench::comm {

/// Parses a comma-separated list of collective, element type or operator names, or "all";
/// throws usage_error "unknown collective|datatype|reduction op 'x'".
[[nodiscard]] std::vector<collective> parse_collectives(const std::string& text);
[[nodiscard]] std::vector<element_type> parse_element_types(const std::string& text);
[[nodiscard]] std::vector<reduce_op> parse_reduce_ops(const std::string& text);

/// The sweeps of one trial: per element type, the reducing collectives once per operator and
/// the others once.
[[nodiscard]] std::vector<sweep_settings> plan(const std::vector<collective>& collectives,
                                               const std::vector<element_type>& types,
                                               const std::vector<reduce_op>& ops, const sweep_settings& base);

/// What to run.
struct collectives_settings {
  std::vector<collective> collectives = {collective::all_reduce};
  std::vector<element_type> types = {element_type::fp32};
  std::vector<reduce_op> ops = {reduce_op::sum};
  sweep_settings base;           ///< sizes, iterations, root, check, graph launches; plan sets collectives, type, op
  int trials = 1;                ///< whole sweeps, one after another
  int threads = 1;               ///< GPU ranks per process (nccl-tests' -t)
  int gpus_per_thread = 1;       ///< multiplies them (nccl-tests' -g)
  std::string backend = "auto";  ///< a name of collective_backends(), already validated
  double timeout_s = 300;        ///< the watchdog's timeout
  injected_fault fault;
  /// Called on rank 0 once the job's settings are checked, before anything is measured.
  std::function<void()> rank0_ready;
  /// Called on rank 0 before each measured step with its name (progress lines); may be empty.
  std::function<void(const std::string& step)> rank0_progress;
  /// Called on rank 0 when the run stops making progress or loses a rank, or on the lowest rank
  /// alive when rank 0 died (on the watchdog's thread, before the process exits with status 1):
  /// what this rank measured so far and who the job waits for. Set it on every rank.
  std::function<void(const collectives_partial& so_far, const hang_verdict& verdict)> rank0_on_hang;
};

/// What one process has after the run; rank 0 reports it.
struct collectives_outcome {
  int rank = 0;  ///< this process's MPI rank
  int ranks_per_process = 1;
  int size = 1;                                ///< ranks in the job
  std::string backend;                         ///< the backend's description
  std::vector<std::vector<sweep_row>> trials;  ///< every finished trial's rows (at least one entry)
  bool interrupted = false;                    ///< `cancel` ended the run early, on every rank
  std::vector<std::string> rank_descriptions;  ///< every rank's rank_description JSON text
  session::live_host host;
  core::device_info measured;  ///< the device of this process's first rank
  std::chrono::system_clock::time_point start;
  std::unique_ptr<watchdog> guard;  ///< still watching, so that writing the results is guarded too
};

/// Runs on every rank of the MPI job. Throws usage_error for settings the job cannot run
/// (no MPI in this build, a root that is no rank, too few GPUs, ...), decided by every rank
/// together where one rank alone would leave the others waiting. When `cancel` becomes true on
/// any rank, every rank stops before its next size; the trial under way is kept only when no
/// trial finished (trials are compared size by size).
[[nodiscard]] collectives_outcome run_collectives(const collectives_settings& settings,
                                                  const std::atomic<bool>* cancel = nullptr);

}  // namespace ironbench::comm
