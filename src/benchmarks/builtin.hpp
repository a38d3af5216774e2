// Every benchmark compiled into this build.
#pragma once

#include "core/registry.hpp"

namespace ironbench::benchmarks {

/// Registers the built-in benchmarks, in the order the default suite runs them; while
/// IRONBENCH_STAND_IN_GPUS is set, each GPU benchmark's stand-in implementation comes first
/// (device/stand_in_gpus.hpp).
void register_builtin_benchmarks(core::registry& registry);

}  // namespace ironbench::benchmarks
