// Whether a multi-rank workload (collectives, tp_infer) runs on GPUs: decided by every rank
// together, since ranks that took different backends would wait for each other forever.
#pragma once

#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "core/device_info.hpp"

namespace ironbench::comm {

/// The GPUs among `devices`.
[[nodiscard]] std::vector<core::device_info> gpus_of(const std::vector<core::device_info>& devices);

/// True when the job runs on GPUs: `wants_gpus` on every rank and every rank has one among
/// `devices`. When `backend` is not "auto" (GPUs were asked for by name) and some rank has
/// none, every rank throws a usage error saying how many lack one (and, on such a rank, why:
/// the first of `device_notes`). A collective call.
[[nodiscard]] bool every_rank_takes_gpus(bootstrap& world, const std::string& backend, bool wants_gpus,
                                         const std::vector<core::device_info>& devices,
                                         const std::vector<std::string>& device_notes);

}  // namespace ironbench::comm
