// The message of the usage_error a call throws, for tests of settings checks.
#pragma once

#include <functional>
#include <string>

#include "core/error.hpp"

namespace ironbench::testing {

/// What usage_message answers for a call that throws no usage_error.
inline const std::string no_usage_error = "no usage_error";

/// What `call` throws as usage_error, or "no usage_error" when it returns (or throws nothing).
inline std::string usage_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const usage_error& e) {
    return e.what();
  }
  return no_usage_error;
}

}  // namespace ironbench::testing
