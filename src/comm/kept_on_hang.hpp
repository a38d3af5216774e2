// What a rank of a multi-rank workload has measured so far, kept for its watchdog: the
// measuring thread updates the copy after each step, and on a hang or a lost rank the watchdog's
// thread of the rank that reports (rank 0, or the lowest rank alive when rank 0 died) hands the
// copy and the verdict to the workload's handler (which writes the partial run) before the
// process ends. Shared by tp-infer and train; `Outcome` is the workload's outcome type, whose
// `watchdog` member (std::shared_ptr<comm::watchdog>) the copies leave empty.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "comm/watchdog.hpp"

namespace ironbench::comm {

template <class Outcome>
class kept_on_hang {
 public:
  using handler = std::function<void(const Outcome& so_far, const hang_verdict& verdict)>;

  /// Keeps nothing unless `on_hang` is set (set it on every rank); otherwise installs the handler on
  /// `guard` with `initial` as what there is before the first keep().
  kept_on_hang(watchdog& guard, handler on_hang, Outcome initial)
      : shared_(on_hang ? std::make_shared<shared>() : nullptr) {
    if (!shared_) return;
    shared_->data = std::move(initial);
    shared_->data.watchdog.reset();
    guard.on_hang([kept = shared_, on_hang = std::move(on_hang)](const hang_verdict& verdict) {
      const std::lock_guard lock(kept->mutex);
      on_hang(kept->data, verdict);
    });
  }

  /// Replaces the copy with `now` (no-op when nothing is kept).
  void keep(const Outcome& now) {
    if (!shared_) return;
    const std::lock_guard lock(shared_->mutex);
    shared_->data = now;
    shared_->data.watchdog.reset();  // the watchdog's handler holds the copy: no cycle
  }

 private:
  struct shared {
    std::mutex mutex;
    Outcome data;
  };
  std::shared_ptr<shared> shared_;
};

}  // namespace ironbench::comm
