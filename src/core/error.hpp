// Errors of ironbench. Library code throws; only main() catches and turns an error into a
// one-line message and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace ironbench {

/// A failure while running (an I/O error, a library call that failed, a device that broke).
/// Exit code 1.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input from the user: unknown flag, malformed axis value, impossible size, missing file.
/// Exit code 2. The message is one line and names what was wrong.
class usage_error : public error {
 public:
  using error::error;
};

/// Thrown by a benchmark case that cannot run on the device at hand; the runner records the
/// case as skipped with this reason instead of failing the run.
class skip_case : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Builds the message of a failed check: "file:line: call failed: detail".
[[nodiscard]] std::string check_failure_message(const char* file, int line, const char* call,
                                                const std::string& detail);

}  // namespace ironbench

/// Throws ironbench::error when `condition` is false; `detail` is any std::string expression.
#define IRONBENCH_CHECK(condition, detail)                                                                    \
  do {                                                                                                        \
    if (!(condition)) {                                                                                       \
      throw ::ironbench::error(::ironbench::check_failure_message(__FILE__, __LINE__, #condition, (detail))); \
    }                                                                                                         \
  } while (false)
