#include "comm/watchdog.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace ironbench::comm {

watchdog::watchdog(std::chrono::duration<double> timeout, int rank)
    : timeout_(timeout), rank_(rank), last_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

watchdog::~watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void watchdog::heartbeat(const std::string& step) {
  std::lock_guard lock(mutex_);
  step_ = step;
  last_ = std::chrono::steady_clock::now();
}

void watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto deadline = last_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
    if (std::chrono::steady_clock::now() >= deadline) {
      const auto message = fmt::format(
          "ironbench: error: rank {} made no progress for {:.0f} s in {} (a rank died or hangs, or a link is down); "
          "ending the run (--timeout sets the limit)\n",
          rank_, timeout_.count(), step_);
      std::fputs(message.c_str(), stderr);
      std::fflush(stderr);
      std::_Exit(1);
    }
    wake_.wait_until(lock, deadline, [this] { return stopping_; });
  }
}

}  // namespace ironbench::comm
