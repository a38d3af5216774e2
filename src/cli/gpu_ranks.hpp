// Whether a multi-rank command (collectives, tp_infer) runs on GPUs: decided by every rank
// together, since ranks that took different backends would wait for each other forever.
#pragma once

#include <string>
#include <vector>

#include "cli/live_host.hpp"
#include "comm/communicator.hpp"
#include "core/device_info.hpp"

namespace ironbench::cli {

/// The GPUs among `host`'s devices.
[[nodiscard]] std::vector<core::device_info> gpus_of(const live_host& host);

/// True when the job runs on GPUs: `wants_gpus` on every rank and every rank has one. When
/// `backend` is not "auto" (GPUs were asked for by name) and some rank has none, every rank
/// throws a usage error saying how many lack one (and, on such a rank, why). A collective call.
[[nodiscard]] bool every_rank_takes_gpus(comm::bootstrap& world, const std::string& backend, bool wants_gpus,
                                         const live_host& host);

}  // namespace ironbench::cli
