// What one rank of a job validates when several ranks of it share a host (mpirun -np 8 on one
// node, srun --ntasks-per-node=8): each rank validating the whole host at once filled its
// memory once per rank (4 ranks on a 24 GB machine: one OOM-killed at 6.4 GB) and split its
// GPUs' time between the ranks.
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"

namespace ironbench::validate {

/// This process's place among the ranks of its host.
struct host_share {
  int local_rank = 0;
  int local_size = 1;  ///< ranks on this host (1: alone)
};

/// The devices one rank validates and the share of the host it may use:
/// - the CPU: every rank measures it, with 1/local_size of the host's memory (memory_bytes and
///   properties.available_memory_bytes) and of its threads (properties.threads, at least 1),
///   since the ranks measure at the same time;
/// - GPUs: when `all_devices` (no --device given), each GPU once on the host: GPU index i goes
///   to the local rank i % local_size, as nccl-tests and `collectives` give each rank its GPU;
///   GPUs a user named (--device) are validated as named.
/// Returns the devices; `notes` gets one line saying what this rank took, when it shares.
[[nodiscard]] std::vector<core::device_info> share_devices(std::vector<core::device_info> devices,
                                                           const host_share& share, bool all_devices,
                                                           std::vector<std::string>& notes);

/// share_devices on the devices this process found, then, where the CPU is shared, its threads
/// applied (OpenMP and OpenBLAS) and its FMA rate measured again with them (the other ranks
/// measure theirs at the same time). Returns the devices; the notes as share_devices.
[[nodiscard]] std::vector<core::device_info> take_host_share(std::vector<core::device_info> devices,
                                                             const host_share& share, bool all_devices,
                                                             std::vector<std::string>& notes);

}  // namespace ironbench::validate
