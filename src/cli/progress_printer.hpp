// One line per case on standard error while a run goes: "[ 3/27] gemm on cpu dtype=fp64 ...
// 0.123 TFLOP/s valid".
#pragma once

#include <ostream>

#include "core/runner.hpp"

namespace ironbench::cli {

/// A progress callback that writes to `out`; silent when `quiet`.
[[nodiscard]] core::progress_callback progress_printer(std::ostream& out, bool quiet);

}  // namespace ironbench::cli
