// The verdict a point's own requests give it, once every client rank's are merged: a point
// that was interrupted, or in which too many requests failed, is INVALID with the reason
// (beside the client's own checks: lateness, saturation, implausible usage).
#pragma once

#include "serve/client/load_generator.hpp"

namespace ironbench::serve {

/// --max-failed-share's default: a point in which more than half of the requests sent failed
/// is INVALID. Its latencies and throughputs describe the minority that completed (vLLM's
/// `bench serve` counts failed requests but gives no verdict).
inline constexpr double default_max_failed_share = 0.5;

/// Marks `result` INVALID (valid = false, the reason appended to invalid_reason):
/// - when it was interrupted (Ctrl-C): "interrupted (Ctrl-C) with N of M requests completed";
///   an interrupted point is never VALID, whatever it measured before;
/// - when failed / sent > `max_failed_share` (0 to 1): "F of N requests failed (P %), more
///   than --max-failed-share S; the first: CLASS: ERROR".
void judge_point(load_result& result, double max_failed_share);

}  // namespace ironbench::serve
