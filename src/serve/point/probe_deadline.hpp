// A cancel flag that a deadline sets as well as the user: a search probe (or the capacity
// estimate) that runs past its time limit is stopped like a Ctrl-C, and the caller can tell
// the two apart.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ironbench::serve {

class probe_deadline {
 public:
  /// Starts watching: flag() becomes true once `user` (may be null) is set or `limit_s`
  /// seconds have passed.
  probe_deadline(const std::atomic<bool>* user, double limit_s);
  probe_deadline(const probe_deadline&) = delete;
  probe_deadline& operator=(const probe_deadline&) = delete;
  ~probe_deadline();

  /// The flag to hand to the load as its cancel flag.
  [[nodiscard]] const std::atomic<bool>* flag() const { return &flag_; }
  /// Whether the deadline (not the user) set it.
  [[nodiscard]] bool expired() const { return expired_.load(); }

 private:
  std::atomic<bool> flag_{false}, expired_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace ironbench::serve
