#include "serve/point/probe_deadline.hpp"

#include <algorithm>
#include <chrono>

namespace ironbench::serve {

probe_deadline::probe_deadline(const std::atomic<bool>* user, double limit_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(std::min(limit_s, 1e8)));
  watcher_ = std::thread([this, user, until] {
    std::unique_lock lock(mutex_);
    while (!done_) {
      if (user != nullptr && user->load()) {
        flag_ = true;
        return;
      }
      if (std::chrono::steady_clock::now() >= until) {
        expired_ = true;
        flag_ = true;
        return;
      }
      wake_.wait_for(lock, std::chrono::milliseconds(20));
    }
  });
}

probe_deadline::~probe_deadline() {
  {
    const std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

}  // namespace ironbench::serve
