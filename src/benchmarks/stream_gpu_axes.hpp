// What the GPU stream benchmark sweeps by default. Pure C++ (tested everywhere).
#pragma once

#include <cstdint>
#include <vector>

#include "core/axis.hpp"
#include "core/device_info.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::benchmarks {

/// Default bytes per array on a GPU: 1 MiB to 4 GiB by factors of 4 (the seed swept 1M..8G;
/// the small sizes show the L2, the large ones HBM), capped so three arrays fit in memory.
[[nodiscard]] std::vector<std::int64_t> default_gpu_stream_sizes(std::uint64_t device_memory_bytes);

/// Axes on a GPU: dtype (fp64, fp32), size, kernel.
[[nodiscard]] std::vector<core::axis> gpu_stream_axes(const core::device_info& device);

/// Throws usage_error when the size holds less than one element.
void check_gpu_stream_params(const core::parameter_set& params);

}  // namespace ironbench::benchmarks
