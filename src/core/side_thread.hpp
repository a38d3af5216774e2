// A helper thread started once and handed the same work again and again: for work that must
// run beside the caller's inside a timed region, where starting a thread each time would be
// timed too.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace ironbench::core {

/// Runs `work` on its own thread each time start() is called; wait() returns when that run
/// has finished, and throws what it threw. start() and wait() alternate, from one thread.
class side_thread {
 public:
  explicit side_thread(std::function<void()> work) : work_(std::move(work)), thread_([this] { loop(); }) {}
  side_thread(const side_thread&) = delete;
  side_thread& operator=(const side_thread&) = delete;
  ~side_thread() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void start() {
    {
      std::lock_guard lock(mutex_);
      pending_ = true;
    }
    wake_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return !pending_; });
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return pending_ || stopping_; });
      if (stopping_) return;
      lock.unlock();
      std::exception_ptr failure;
      try {
        work_();
      } catch (...) {
        failure = std::current_exception();
      }
      lock.lock();
      failure_ = failure;
      pending_ = false;
      wake_.notify_all();
    }
  }

  std::function<void()> work_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false, stopping_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ironbench::core
