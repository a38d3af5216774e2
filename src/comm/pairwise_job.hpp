// The pairwise sweep (pairwise_sweep.hpp) on the ranks of an MPI job: MPI's world, a watchdog
// that names the ranks a hung round waits for, and barriers that wait without spinning. What
// `collectives --pairs` and validate's pairwise check run; no CLI types.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "comm/communicator.hpp"
#include "comm/hang_culprits.hpp"
#include "comm/pairwise_sweep.hpp"

namespace ironbench::comm {

/// The largest size a pair exchanges: MPI's 32-bit counts, and memory (three buffers of the
/// largest size per measuring rank).
inline constexpr std::size_t largest_pair_bytes = std::size_t{1} << 30;

/// MPI's world for the sweep; usage_error before MPI starts where it cannot run (fewer than 2
/// ranks launched, or no MPI in this build).
[[nodiscard]] std::shared_ptr<bootstrap> pairwise_world();

/// Runs the sweep with `settings` on every rank of the MPI job (pairwise_world) under a
/// watchdog of `timeout_s` that, on a hang, names the ranks the job waits for
/// (comm/watchdog.hpp) and on rank 0 (or on the lowest rank alive when rank 0 died) calls
/// `rank0_on_hang` (when set) before the process ends. usage_error, on every rank alike, where
/// the job cannot run it (one rank, one node in nodes mode), and before MPI starts where there
/// is no launcher or no MPI in the build.
[[nodiscard]] pairwise_result run_pairwise_on_job(const pairwise_settings& settings, double timeout_s,
                                                  const std::atomic<bool>* cancel,
                                                  const std::function<void(const hang_verdict&)>& rank0_on_hang = {});

}  // namespace ironbench::comm
