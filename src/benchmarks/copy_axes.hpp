// What the copy and p2p benchmarks sweep, and which of their cases cannot run. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "core/axis.hpp"
#include "core/case_footprint.hpp"
#include "core/device_info.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::benchmarks {

/// Default bytes per copy (nvbandwidth's default buffer size).
inline constexpr std::int64_t default_copy_bytes = std::int64_t{512} << 20;

/// Copy paths: h2d, d2h, bidir (h2d and d2h at once) from pinned host memory; the same with
/// "_pageable" from ordinary host memory; d2d within the GPU.
inline const std::vector<std::string> copy_paths = {
    "h2d", "d2h", "bidir", "h2d_pageable", "d2h_pageable", "bidir_pageable", "d2d"};

/// Axes of `copy`: path, engine (ce: copy engines via memcpy; sm: a copy kernel), size.
[[nodiscard]] std::vector<core::axis> copy_axes();

/// Empty when the copy case can run; otherwise why not (a kernel cannot reach pageable memory).
[[nodiscard]] std::string copy_case_unsupported(const core::parameter_set& params);

/// Whether a copy case is in the default suite's first look: h2d and d2h by copy engines (the
/// GPU's host link each way, as nvbandwidth's host_to_device/device_to_host_memcpy_ce).
[[nodiscard]] bool copy_in_first_look(const core::parameter_set& params);

/// What the copy first look runs, for `ironbench list`.
[[nodiscard]] std::string copy_first_look_summary();

/// What a copy case occupies: the host's links, but for d2d.
[[nodiscard]] core::case_footprint copy_footprint(const core::parameter_set& params);

/// Ids of the other GPUs of the same vendor ("cuda:1", ...), from the device's gpu_count.
[[nodiscard]] std::vector<std::string> other_gpu_ids(const core::device_info& device);

/// Empty when `device` has a GPU to copy to; otherwise why not.
[[nodiscard]] std::string p2p_unsupported(const core::device_info& device);

/// Axes of `p2p`: peer (every other GPU), direction (write, bidir), engine (ce, sm), size.
[[nodiscard]] std::vector<core::axis> p2p_axes(const core::device_info& device);

/// Whether a p2p case is in the first look: writes by copy engines to every peer (the one-way
/// bandwidth matrix, as nvbandwidth's device_to_device_memcpy_write_ce).
[[nodiscard]] bool p2p_in_first_look(const core::parameter_set& params);

/// What the p2p first look runs, for `ironbench list`.
[[nodiscard]] std::string p2p_first_look_summary();

/// What a p2p case occupies: its peer GPU.
[[nodiscard]] core::case_footprint p2p_footprint(const core::parameter_set& params);

/// Empty when the p2p case can run; otherwise why not (a kernel needs peer access).
[[nodiscard]] std::string p2p_case_unsupported(const core::parameter_set& params, const core::device_info& device);

/// Throws usage_error for a size below one byte, or a peer that is not another GPU.
void check_copy_params(const core::parameter_set& params, const core::device_info& device);

}  // namespace ironbench::benchmarks
