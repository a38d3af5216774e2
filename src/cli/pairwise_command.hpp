// `ironbench collectives --pairs`: the pairwise sweep (comm/pairwise_sweep.hpp) as a command,
// run by every rank of an MPI job; rank 0 prints the matrices and the named node or link and
// writes the run (settings.pairwise, one case per pair and size). Also the sweep validate's
// check runs (cli/validate_pairwise.hpp).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "comm/hang_culprits.hpp"
#include "comm/pairwise_sweep.hpp"
#include "report/run_outputs.hpp"

namespace ironbench::cli {

/// What --pairs takes from the collectives command's options.
struct pairs_request {
  std::string mode;                      ///< --pairs' value: nodes (also when empty) or ranks
  std::optional<std::string> min_bytes;  ///< --minbytes when given (default 64K)
  std::optional<std::string> max_bytes;  ///< --maxbytes when given (default 16M)
  double step_factor = 2;
  std::string step_bytes = "0";
  bool sizes_given = false;  ///< either of --minbytes/--maxbytes given: their sweep, else 64K, 1M, 16M
  int iterations = 20, warmup_iterations = 5;
  std::string timeout = "300s";
  std::string inject_fault;
  double outlier_factor = comm::default_pair_outlier_factor;
  std::string backend = "auto";
  bool quiet = false;
  report::output_options outputs;
};

/// The sweep's settings from `request` (usage_error for bad values; nothing runs).
[[nodiscard]] comm::pairwise_settings pairwise_settings_of(const pairs_request& request);

/// Runs the sweep on this rank of the job (MPI's world) with `settings`, watched by a watchdog
/// of `timeout_s`; usage_error, on every rank alike, where the job cannot run it (one rank, one
/// node in nodes mode), and before MPI starts where there is no launcher or no MPI in the build.
/// Runs the sweep on every rank of the MPI job under a watchdog of `timeout_s` that, on a hang,
/// names the ranks the job waits for (comm/watchdog.hpp) and on rank 0 (or on the lowest rank
/// alive when rank 0 died) calls `rank0_on_hang` (when set) before the process ends.
[[nodiscard]] comm::pairwise_result run_pairwise_on_job(
    const comm::pairwise_settings& settings, double timeout_s, const std::atomic<bool>* cancel,
    const std::function<void(const comm::hang_verdict&)>& rank0_on_hang = {});

/// The command: exit 0, 1 when a byte received was wrong, 2 for bad usage, 130 interrupted.
[[nodiscard]] int run_pairs_command(const pairs_request& request, const invocation& call);

}  // namespace ironbench::cli
