// Times as results write them: UTC, formatted with strftime's conversions.
#pragma once

#include <chrono>
#include <string>

namespace ironbench {

/// `t` in UTC with a strftime format, e.g. "%Y%m%d-%H%M%S".
[[nodiscard]] std::string utc_time(std::chrono::system_clock::time_point t, const char* format);

/// `t` as results store it: ISO 8601 in UTC to the second, "2026-11-23T19:41:34Z".
[[nodiscard]] std::string iso8601_utc(std::chrono::system_clock::time_point t);

/// iso8601_utc() of the current time.
[[nodiscard]] std::string iso8601_utc_now();

}  // namespace ironbench
