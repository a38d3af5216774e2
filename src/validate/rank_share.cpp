#include "validate/rank_share.hpp"

#include <fmt/format.h>

#include <omp.h>

#include <algorithm>

#include "blas/openblas.hpp"

#include "core/text.hpp"
#include "core/units.hpp"
#include "device/cpu/cpu_device.hpp"

namespace ironbench::validate {

std::vector<core::device_info> share_devices(std::vector<core::device_info> devices, const host_share& share,
                                             bool all_devices, std::vector<std::string>& notes) {
  const int ranks = std::max(1, share.local_size);
  if (ranks == 1) return devices;
  std::vector<core::device_info> out;
  std::vector<std::string> taken;
  for (auto& d : devices) {
    if (core::is_gpu(d)) {
      if (all_devices && d.index % ranks != share.local_rank % ranks) continue;
      taken.push_back(d.id);
      out.push_back(std::move(d));
      continue;
    }
    // The CPU: a 1/ranks share of the host's memory and threads.
    d.memory_bytes /= static_cast<std::uint64_t>(ranks);
    auto& p = d.properties;
    if (p.contains("available_memory_bytes") && p["available_memory_bytes"].is_number()) {
      p["available_memory_bytes"] = p["available_memory_bytes"].get<std::int64_t>() / ranks;
    }
    const int threads = std::max(1, p.value("threads", 1) / ranks);
    p["threads"] = threads;
    p["host_share"] = fmt::format("1/{} of the host (local rank {} of {})", ranks, share.local_rank, ranks);
    taken.push_back(fmt::format("{} ({} thread{}, {})", d.id, threads, threads == 1 ? "" : "s",
                                format_bytes(static_cast<double>(d.memory_bytes))));
    out.push_back(std::move(d));
  }
  notes.push_back(fmt::format("{} ranks share this host: local rank {} validates {}", ranks, share.local_rank,
                              taken.empty() ? std::string("no device") : join(taken, ", ")));
  return out;
}

std::vector<core::device_info> take_host_share(std::vector<core::device_info> devices, const host_share& share,
                                               bool all_devices, std::vector<std::string>& notes) {
  auto out = share_devices(std::move(devices), share, all_devices, notes);
  if (share.local_size <= 1) return out;
  for (auto& d : out) {
    if (core::is_gpu(d)) continue;
    const int threads = d.properties.value("threads", 1);
    omp_set_num_threads(threads);
    blas::openblas_set_threads(threads);
    d.properties.erase("measured_flops");
    device::add_measured_cpu_flops(d);
  }
  return out;
}

}  // namespace ironbench::validate
