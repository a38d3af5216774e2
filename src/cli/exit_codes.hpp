// Exit codes of ironbench (docs/cli.md).
#pragma once

namespace ironbench::cli {

inline constexpr int exit_ok = 0;             ///< every case valid (or skipped with a reason)
inline constexpr int exit_failure = 1;        ///< a case invalid or failed, or a runtime error
inline constexpr int exit_usage = 2;          ///< bad flags, axis values, sizes, paths
inline constexpr int exit_interrupted = 130;  ///< stopped by SIGINT/SIGTERM; partial results written

}  // namespace ironbench::cli
