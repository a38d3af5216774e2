#include "comm/gpu_ranks.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace ironbench::comm {

std::vector<core::device_info> gpus_of(const std::vector<core::device_info>& devices) {
  std::vector<core::device_info> gpus;
  for (const auto& d : devices) {
    if (d.kind != core::device_kind::cpu) gpus.push_back(d);
  }
  return gpus;
}

bool every_rank_takes_gpus(bootstrap& world, const std::string& backend, bool wants_gpus,
                           const std::vector<core::device_info>& devices,
                           const std::vector<std::string>& device_notes) {
  const bool has_gpu = !gpus_of(devices).empty();
  const int ranks_with_gpu = static_cast<int>(world.sum(has_gpu ? 1.0 : 0.0));
  const bool all = ranks_with_gpu == world.size();
  if (wants_gpus && backend != "auto" && !all) {
    throw usage_error(fmt::format(
        "--backend {}: {} of {} ranks have no GPU{}", backend, world.size() - ranks_with_gpu, world.size(),
        has_gpu
            ? std::string()
            : fmt::format(" (rank {}: {})", world.rank(), device_notes.empty() ? "none found" : device_notes.front())));
  }
  return wants_gpus && all;
}

}  // namespace ironbench::comm
