// Exit codes of ironbench (docs/cli.md).
#pragma once

#include "core/result.hpp"

namespace ironbench::cli {

inline constexpr int exit_ok = 0;       ///< every case valid (or skipped with a reason)
inline constexpr int exit_failure = 1;  ///< a case invalid or failed, or a runtime error
inline constexpr int exit_usage = 2;    ///< bad flags, axis values, sizes, paths
/// serve --search could not judge: no load met the objectives and the lowest probed could not
/// be judged (the client fell behind its schedule), so "missed" cannot be said.
inline constexpr int exit_unjudged = 3;
inline constexpr int exit_interrupted = 130;  ///< stopped by SIGINT/SIGTERM; partial results written

/// The exit code of a finished run: interrupted 130, valid 0, invalid 1.
[[nodiscard]] inline int exit_code_of(const core::run_result& run) {
  if (run.status == core::run_status::interrupted) return exit_interrupted;
  return run.status == core::run_status::valid ? exit_ok : exit_failure;
}

}  // namespace ironbench::cli
