// Progress on standard error while a run goes. One line per case: "[ 3/27] gemm on cpu
// dtype=fp64 ... 0.123 TFLOP/s valid, about 1 min 20 s left"; where devices run side by side,
// each line names its device and that device's time left: "[cuda:1  3/26] gemm dtype=bf16 ...:
// 687 TFLOP/s valid (cuda:1: 41 s left)". On a terminal, devices side by side get one line each,
// redrawn in place with the case under way and the time left.
#pragma once

#include <ostream>

#include "core/progress_event.hpp"

namespace ironbench::cli {

enum class progress_style {
  none,   ///< nothing
  lines,  ///< a line per case, as above
  live,   ///< lines where one device runs at a time; else a line per device redrawn in place
          ///< (ANSI cursor movement), cases that fail printed above them
};

/// A progress callback that writes to `out` in `style` (none: an empty callback).
[[nodiscard]] core::progress_callback progress_printer(std::ostream& out, progress_style style);

/// progress_style::lines, or none when `quiet`.
[[nodiscard]] core::progress_callback progress_printer(std::ostream& out, bool quiet);

}  // namespace ironbench::cli
