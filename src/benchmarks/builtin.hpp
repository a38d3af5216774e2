// Every benchmark compiled into this build.
#pragma once

#include "core/registry.hpp"

namespace ironbench::benchmarks {

/// Registers the built-in benchmarks, in the order the default suite runs them.
void register_builtin_benchmarks(core::registry& registry);

}  // namespace ironbench::benchmarks
