// An interval of the steady clock (when a case's measurement ran, say).
#pragma once

#include <chrono>

namespace ironbench::core {

/// From `begin` to `end` on std::chrono::steady_clock.
struct time_window {
  std::chrono::steady_clock::time_point begin;
  std::chrono::steady_clock::time_point end;
};

}  // namespace ironbench::core
