// Ends a rank that stops making progress: a collective waiting for a rank that died or hangs
// would otherwise wait forever. A background thread checks the time since the last heartbeat;
// past the timeout it prints one line and exits the process with status 1, and the launcher
// (mpirun, srun) then ends the other ranks. With watch_ranks, rank 0's line names the ranks the
// job waits for (comm/progress_channel.hpp), and the other ranks give rank 0 time to say so.
// A rank that dies ends the run at once, without waiting for the timeout: rank 0 names it, or,
// when rank 0 is the one that died, the lowest rank still alive names it; either writes the
// run (on_hang) before the launcher ends the job.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "comm/hang_culprits.hpp"

namespace ironbench::comm {

class bootstrap;
class progress_channel;

class watchdog {
 public:
  /// Starts watching; `rank` names the process in the message.
  watchdog(std::chrono::duration<double> timeout, int rank);
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  /// Stops watching (no exit).
  ~watchdog();

  /// Progress: restarts the timeout, and names what is running now. With watch_ranks, each
  /// call is the next operation every rank enters (the same calls in the same order on each).
  void heartbeat(const std::string& step);

  /// Collective over `world`: opens the progress channel (this process is `world`'s rank, on
  /// host `host`), so that on a timeout rank 0 names the ranks that never entered the furthest
  /// operation or stopped responding, and the others wait for rank 0 to say so; and so that a
  /// rank that dies ends the run at once, named by rank 0 (or by the lowest rank alive when
  /// rank 0 died).
  void watch_ranks(bootstrap& world, const std::string& host);

  /// The rank that reports (rank 0 on a timeout or a death; the lowest rank alive when rank 0
  /// died): called with the verdict after the line is printed and before the exit (to write the
  /// results measured so far). Runs on the watchdog's thread. Set it on every rank.
  void on_hang(std::function<void(const hang_verdict&)> handler);

 private:
  void loop();
  // Judges a timeout; returns (without exiting) only when progress resumed while it judged.
  bool expire(std::unique_lock<std::mutex>& lock);
  // Acts on what the channel saw: a rank that died, rank 0's end.
  void channel_event(std::unique_lock<std::mutex>& lock);
  // Rank 0 is gone: the lowest rank alive reports; the others return.
  void lost_rank0(std::unique_lock<std::mutex>& lock);
  [[noreturn]] void report(std::unique_lock<std::mutex>& lock, const hang_verdict& verdict);

  std::chrono::duration<double> timeout_;
  int rank_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool event_ = false;
  std::string step_ = "start-up";
  std::chrono::steady_clock::time_point last_;
  std::shared_ptr<progress_channel> channel_;
  std::function<void(const hang_verdict&)> on_hang_;
  std::thread thread_;
};

}  // namespace ironbench::comm
