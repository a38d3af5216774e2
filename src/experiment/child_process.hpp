// A program an experiment starts: run through /bin/sh -c in a process group of its own (so
// that stopping it stops everything it started), its standard output and error appended to a
// log file. The destructor stops it (SIGTERM to the group, SIGKILL after the grace period).
//
// Between ironbench and the program stands a keeper process (a fork of ironbench that does not
// exec): the program's parent and the subreaper of everything the program starts, tied to
// ironbench's life by PR_SET_PDEATHSIG. However ironbench ends (SIGKILL, a crash, the OOM
// killer), the keeper ends the program's whole tree — its process group and every process that
// left it and lost its parent — SIGTERM first, SIGKILL after the grace period, and exits. It
// ends the tree as well when the program itself exits (what the program left running goes
// with it), and exits with the program's status.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ironbench::experiment {

/// How to start a program.
struct child_settings {
  std::string command;                                   ///< a shell command line
  std::vector<std::pair<std::string, std::string>> env;  ///< added to (or replacing in) the environment
  std::string workdir;                                   ///< "" = the current directory
  std::string log_path;                                  ///< standard output and error go here (appended)
  double stop_grace_s = 10;
  /// When not empty: a service's tag (process_tag.hpp). The program and everything it starts
  /// get IRONBENCH_SERVICE_TAG=tag, and stop() ends every process with the tag (one that
  /// called setsid or left the group included; what the keeper could not end is found by its
  /// tag by a later run too).
  std::string tag;
};

class child_process {
 public:
  /// Starts it; throws ironbench::error when it cannot be started (fork fails, or the log
  /// file or the working directory cannot be opened: the message says which).
  explicit child_process(child_settings settings);
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();

  /// The exit status once it ended (and what it left running was ended with it): the exit
  /// code, or 128 + the signal that ended it; empty while it runs. Reaps it without waiting.
  [[nodiscard]] std::optional<int> exit_status();
  /// Waits up to `seconds` for it to end; its status, or empty when it still runs.
  [[nodiscard]] std::optional<int> wait_for(double seconds);
  /// SIGTERM to its process group (and every process with its tag), SIGKILL after the grace
  /// period; returns its status. Every process of the group (and with the tag) is gone afterwards.
  int stop();
  /// "exit status 3" or "killed by signal 9 (SIGKILL)".
  [[nodiscard]] static std::string describe_status(int status);

  /// The program's pid (its shell's), which is also its process group.
  [[nodiscard]] int pid() const { return pid_; }
  [[nodiscard]] const std::string& log_path() const { return settings_.log_path; }

 private:
  child_settings settings_;
  int pid_ = -1;     ///< the program
  int keeper_ = -1;  ///< its parent, ironbench's child
  std::optional<int> status_;
};

/// The last `lines` lines of the file at `path` ("" when it cannot be read).
[[nodiscard]] std::string tail_of_file(const std::string& path, std::size_t lines);

}  // namespace ironbench::experiment
