// Turning a benchmark's axes (and the user's overrides) into the list of cases to run.
#pragma once

#include <string_view>
#include <vector>

#include "core/axis.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::core {

/// Applies the overrides meant for `benchmark` (those naming it, and those naming no
/// benchmark whose axis it has) to a copy of `axes` and returns it.
///
/// Zip groups: when only some axes of a group are overridden, the others take the values of
/// the first overridden one, so `--axis M=4096,8192` on GEMM runs two square shapes. Axes of
/// one group must then have equal lengths, or length 1 (broadcast to the others).
/// Throws usage_error for an override naming an axis this benchmark lacks (when it names
/// the benchmark), an axis given twice, or zip groups of unequal lengths.
[[nodiscard]] std::vector<axis> apply_overrides(std::string_view benchmark, std::vector<axis> axes,
                                                const std::vector<axis_override>& overrides);

/// The cases of a sweep: the cartesian product of the axes in declaration order (the first
/// axis varies slowest), where a zip group contributes its rows together at the position of
/// its first axis. Throws usage_error when an axis has no values.
[[nodiscard]] std::vector<parameter_set> expand_sweep(const std::vector<axis>& axes);

}  // namespace ironbench::core
