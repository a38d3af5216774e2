#include "serve/point/point_verdict.hpp"

#include <fmt/format.h>

namespace ironbench::serve {
namespace {

void mark_invalid(load_result& result, const std::string& why) {
  result.invalid_reason = result.valid ? why : result.invalid_reason + "; " + why;
  result.valid = false;
}

}  // namespace

void judge_point(load_result& result, double max_failed_share) {
  const auto sent = result.records.size();
  std::size_t failed = 0;
  const request_record* first = nullptr;
  for (const auto& r : result.records) {
    if (r.success) continue;
    if (failed++ == 0) first = &r;
  }
  if (result.interrupted) {
    // What was in flight was cancelled: the failures are the interruption's.
    mark_invalid(result, fmt::format("interrupted (Ctrl-C) with {} of {} requests completed", sent - failed,
                                     sent + result.not_sent));
    return;
  }
  if (sent == 0 || first == nullptr) return;
  const double share = static_cast<double>(failed) / static_cast<double>(sent);
  if (share > max_failed_share) {
    mark_invalid(result, fmt::format("{} of {} requests failed ({:.0f} %), more than --max-failed-share {:g}; the "
                                     "first: {}: {}",
                                     failed, sent, 100 * share, max_failed_share, first->error_class, first->error));
  }
}

}  // namespace ironbench::serve
