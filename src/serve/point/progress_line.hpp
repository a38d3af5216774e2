// The line that shows a serving point in progress: requests done of all, running, failed,
// time so far, an estimate of the time left, and the output token rate of the last interval.
// On a terminal it is rewritten in place; in a log it is a plain line every interval.
#pragma once

#include <string>

#include "serve/client/load_generator.hpp"

namespace ironbench::serve {

/// "serve: 120/400 done, 8 running, 0 failed, 6.0 s, ETA 14 s, 1234 output tok/s". `live`:
/// starts with a carriage return and ends by erasing the rest of the terminal line (no
/// newline), so that the next one replaces it; otherwise it ends with a newline. The ETA is
/// the time so far scaled to the requests not yet ended ("ETA -" before the first ends).
[[nodiscard]] std::string progress_line(const load_progress& p, bool live);

/// What ends a live line before other output ("\r" and erase the line); "" when not live.
[[nodiscard]] std::string end_of_progress(bool live);

}  // namespace ironbench::serve
