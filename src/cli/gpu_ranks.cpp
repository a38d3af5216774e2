#include "cli/gpu_ranks.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace ironbench::cli {

std::vector<core::device_info> gpus_of(const live_host& host) {
  std::vector<core::device_info> gpus;
  for (const auto& d : host.devices.devices) {
    if (d.kind != core::device_kind::cpu) gpus.push_back(d);
  }
  return gpus;
}

bool every_rank_takes_gpus(comm::bootstrap& world, const std::string& backend, bool wants_gpus, const live_host& host) {
  const bool has_gpu = !gpus_of(host).empty();
  const int ranks_with_gpu = static_cast<int>(world.sum(has_gpu ? 1.0 : 0.0));
  const bool all = ranks_with_gpu == world.size();
  if (wants_gpus && backend != "auto" && !all) {
    throw usage_error(fmt::format("--backend {}: {} of {} ranks have no GPU{}", backend, world.size() - ranks_with_gpu,
                                  world.size(),
                                  has_gpu ? std::string()
                                          : fmt::format(" (rank {}: {})", world.rank(),
                                                        host.devices.notes.empty() ? "none found"
                                                                                   : host.devices.notes.front())));
  }
  return wants_gpus && all;
}

}  // namespace ironbench::cli
