// The step a multi-rank run is at, shown on one line of standard error that each step
// overwrites ("[all_reduce 1048576 B in place]"), for commands whose rank 0 reports steps.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace ironbench::cli {

/// Overwrites the line on `out` with each step; an empty function when `quiet`.
[[nodiscard]] std::function<void(const std::string& step)> step_line(std::ostream& out, bool quiet);

/// Blanks the line step_line wrote (nothing when `quiet`).
void clear_step_line(std::ostream& out, bool quiet);

}  // namespace ironbench::cli
