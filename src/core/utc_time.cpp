#include "core/utc_time.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace ironbench {

std::string utc_time(std::chrono::system_clock::time_point t, const char* format) {
  return fmt::format(fmt::runtime(std::string("{:") + format + "}"),
                     fmt::gmtime(std::chrono::system_clock::to_time_t(t)));
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) { return utc_time(t, "%Y-%m-%dT%H:%M:%SZ"); }

std::string iso8601_utc_now() { return iso8601_utc(std::chrono::system_clock::now()); }

}  // namespace ironbench
