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

/// The two array sizes of the default suite's first look, from default_gpu_stream_sizes: the
/// largest whose three arrays fit in the L2 cache (the smallest size where none does), and the
/// smallest of at least 4x the L2 and 1 GiB (HBM: the H200 reads 2-4 % below its plateau at
/// 256 MiB; MI300X's 256 MiB Infinity Cache needs 1 GiB), or the largest that fits.
[[nodiscard]] std::vector<std::int64_t> gpu_stream_first_look_sizes(const core::device_info& device);

/// Whether a case is in the first look: its size is one of gpu_stream_first_look_sizes.
[[nodiscard]] bool gpu_stream_in_first_look(const core::parameter_set& params, const core::device_info& device);

/// What the first look runs, for `ironbench list`.
[[nodiscard]] std::string gpu_stream_first_look_summary(const core::device_info& device);

/// Axes on a GPU: dtype (fp64, fp32), size, kernel.
[[nodiscard]] std::vector<core::axis> gpu_stream_axes(const core::device_info& device);

/// Throws usage_error when the size holds less than one element.
void check_gpu_stream_params(const core::parameter_set& params);

}  // namespace ironbench::benchmarks
