// What `ironbench validate` measures at each level, per device: GEMM of the dtypes the table
// has expectations for and STREAM triad, at sizes and times that keep quick under a minute,
// standard under five and long under thirty on one GPU (docs/validate.md).
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"

namespace ironbench::validate {

/// burn_in: the devices kept busy for a duration, judged per interval (burn_in.hpp).
enum class level { quick, standard, long_run, burn_in };

/// "quick", "standard", "long" or "burn-in"; usage_error otherwise.
[[nodiscard]] level parse_level(const std::string& text);
[[nodiscard]] const char* to_string(level l);

/// The measurement settings of `l` (shared by every case).
[[nodiscard]] core::measurement_settings settings_of(level l);

/// The cases of `l` on every device: per device, gemm at the level's shape in the dtypes both
/// the device's gemm and the table know, and stream at the level's kernels.
[[nodiscard]] std::vector<core::planned_case> plan_validation(level l, const core::registry& benchmarks,
                                                              const std::vector<core::device_info>& devices);

}  // namespace ironbench::validate
