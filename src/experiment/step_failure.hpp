// Why a step of an experiment point did not finish: it failed (its reason and the log lines
// that show why), or the experiment was interrupted (Ctrl-C, SIGTERM).
#pragma once

#include <stdexcept>
#include <string>

namespace ironbench::experiment {

/// A step failed: the point fails with `what()` and `log_excerpt`.
class step_failure : public std::runtime_error {
 public:
  step_failure(const std::string& reason, std::string log_excerpt)
      : std::runtime_error(reason), log_excerpt_(std::move(log_excerpt)) {}
  [[nodiscard]] const std::string& log_excerpt() const { return log_excerpt_; }

 private:
  std::string log_excerpt_;
};

/// The experiment was interrupted while a step ran.
class step_interrupted : public std::runtime_error {
 public:
  step_interrupted() : std::runtime_error("interrupted (SIGINT or SIGTERM)") {}
};

}  // namespace ironbench::experiment
