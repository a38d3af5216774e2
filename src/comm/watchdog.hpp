// Ends a rank that stops making progress: a collective waiting for a rank that died or hangs
// would otherwise wait forever. A background thread checks the time since the last heartbeat;
// past the timeout it prints one line and exits the process with status 1, and the launcher
// (mpirun, srun) then ends the other ranks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ironbench::comm {

class watchdog {
 public:
  /// Starts watching; `rank` names the process in the message.
  watchdog(std::chrono::duration<double> timeout, int rank);
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  /// Stops watching (no exit).
  ~watchdog();

  /// Progress: restarts the timeout, and names what is running now.
  void heartbeat(const std::string& step);

 private:
  void loop();

  std::chrono::duration<double> timeout_;
  int rank_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::string step_ = "start-up";
  std::chrono::steady_clock::time_point last_;
  std::thread thread_;
};

}  // namespace ironbench::comm
