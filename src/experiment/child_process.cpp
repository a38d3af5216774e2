#include "experiment/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "experiment/process_tag.hpp"

namespace ironbench::experiment {
namespace {

int status_of(int raw) {
  if (WIFEXITED(raw)) return WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) return 128 + WTERMSIG(raw);
  return 1;
}

// Whether a live process (not a zombie waiting to be reaped) of group `pgid` still exists:
// /proc/PID/stat's state (field 3) and process group (field 5), after the ")" of the name.
bool group_alive(int pgid) {
  if (kill(-pgid, 0) != 0 && errno != EPERM) return false;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc", std::filesystem::directory_options::skip_permission_denied)) {
    const auto name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    std::string state;
    long parent = 0, group = 0;
    fields >> state >> parent >> group;
    if (group == pgid && state != "Z" && state != "X") return true;
  }
  return false;
}

}  // namespace

namespace {

// ---- The keeper: what runs between ironbench and the program, in the fork, until it ends.
// Only async-signal-safe calls here (the fork of a threaded process), no allocation.

using keeper_clock_ns = long long;

keeper_clock_ns now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<keeper_clock_ns>(t.tv_sec) * 1'000'000'000LL + t.tv_nsec;
}

// "/proc/self/task/TID/children" for this (single-threaded) process into `path`.
void children_path(char (&path)[64]) {
  const char head[] = "/proc/self/task/";
  std::size_t n = 0;
  for (const char c : head) {
    if (c != '\0') path[n++] = c;
  }
  char digits[24];
  std::size_t d = 0;
  for (auto pid = static_cast<unsigned long>(getpid()); pid > 0 || d == 0; pid /= 10) {
    digits[d++] = static_cast<char>('0' + pid % 10);
  }
  while (d > 0) path[n++] = digits[--d];
  for (const char c : "/children") path[n++] = c;  // its '\0' too
}

// The pids this process has signalled with SIGTERM already (a program that takes a second
// SIGTERM for "hurry" is not hurried): a fixed table, no allocation in the keeper.
struct signalled_pids {
  pid_t pids[1024] = {};
  std::size_t count = 0;
  bool add(pid_t pid) {  // false when it was there (or the table is full: it is signalled again)
    for (std::size_t i = 0; i < count; ++i) {
      if (pids[i] == pid) return false;
    }
    if (count < std::size(pids)) pids[count++] = pid;
    return true;
  }
};

// `signal` to each child of this process (the program, and every orphan of its tree: the keeper
// is their subreaper), read from /proc/self/task/TID/children: what left the program's process
// group and lost its parent is found here. With `once`, a pid already in it is skipped.
void signal_children(int signal, signalled_pids* once) {
  char path[64];
  children_path(path);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const auto send = [&](long pid) {
    if (pid > 0 && (once == nullptr || once->add(static_cast<pid_t>(pid)))) kill(static_cast<pid_t>(pid), signal);
  };
  char buffer[4096];
  long pid = 0;
  for (;;) {
    const auto n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      const char c = buffer[i];
      if (c >= '0' && c <= '9') {
        pid = pid * 10 + (c - '0');
      } else {
        send(pid);
        pid = 0;
      }
    }
  }
  send(pid);
  close(fd);
}

// The keeper: the parent of the program (which leads a process group of its own) and the
// subreaper of everything the program starts. It ends the whole tree (SIGTERM to the program's
// group and to every orphan it adopted, SIGKILL to them after the grace period) when the program
// exits, when ironbench asks (SIGTERM, SIGINT, SIGHUP) and when ironbench dies, however
// (PR_SET_PDEATHSIG, and its parent pid changing); then it exits with the program's status.
// What it cannot see 5 s after the SIGKILL (a process neither in the group nor an orphan) is
// left to stop() and the service's tag. It tells ironbench the program's pid through `report`.
[[noreturn]] void keep(const child_settings& settings, int log, pid_t runner, int report) {
  setpgid(0, 0);  // not in ironbench's group: a Ctrl-C at the terminal is ironbench's to handle
  sigset_t waited;
  sigemptyset(&waited);
  for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&waited, s);
  sigset_t before;
  sigprocmask(SIG_BLOCK, &waited, &before);
  // Fires on the death of the thread that forked: experiments start programs from their main
  // thread, which lives as long as ironbench.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != runner) _exit(128 + SIGTERM);  // ironbench died before the line above
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t keeper = getpid();
  const pid_t program = fork();
  if (program < 0) _exit(127);
  if (program == 0) {
    // The program: only async-signal-safe calls until exec, apart from setenv (a copy of the
    // single-threaded keeper).
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // should the keeper itself be killed
    if (getppid() != keeper) _exit(127);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    if (!settings.tag.empty()) setenv(service_tag_variable, settings.tag.c_str(), 1);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (const auto& [k, v] : settings.env) setenv(k.c_str(), v.c_str(), 1);
    if (!settings.workdir.empty() && chdir(settings.workdir.c_str()) != 0) _exit(127);
    execl("/bin/sh", "sh", "-c", settings.command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(program, program);  // here too: the group exists before ironbench learns the pid
  while (write(report, &program, sizeof program) < 0 && errno == EINTR) {
  }
  // The keeper holds nothing of ironbench's: no terminal, pipe, socket or database file.
  const int null = open("/dev/null", O_RDWR);
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) dup2(null, fd);
#ifdef SYS_close_range
  const bool closed = syscall(SYS_close_range, 3U, ~0U, 0U) == 0;
#else
  const bool closed = false;
#endif
  if (!closed) {
    for (int fd = 3; fd < 65536; ++fd) close(fd);
  }
  const auto grace_ns = static_cast<keeper_clock_ns>(std::clamp(settings.stop_grace_s, 0.0, 7 * 24 * 3600.0) * 1e9);
  const auto exit_code = [&](int raw) { return raw < 0 ? 128 + SIGKILL : status_of(raw); };
  int program_status = -1;
  keeper_clock_ns stop_at = -1;
  keeper_clock_ns killed_at = -1;
  signalled_pids terminated;
  // `group_has_it`: ironbench sent its SIGTERM to the program's group itself.
  const auto stop = [&](bool group_has_it) {
    if (stop_at >= 0) return;
    stop_at = now_ns();
    if (!group_has_it) kill(-program, SIGTERM);
    signal_children(SIGTERM, &terminated);
  };
  for (;;) {
    for (;;) {
      int raw = 0;
      const pid_t ended = waitpid(-1, &raw, WNOHANG);
      if (ended > 0) {
        if (ended == program) {
          program_status = raw;
          stop(false);  // what the program leaves behind goes with it
        }
        continue;
      }
      if (ended < 0 && errno == ECHILD) _exit(exit_code(program_status));
      break;
    }
    if (stop_at < 0 && getppid() != runner) stop(false);  // ironbench is gone
    if (stop_at >= 0) {
      const auto now = now_ns();
      if (killed_at < 0 && now - stop_at >= grace_ns) killed_at = now;
      // Every round: a process that became an orphan since (its parent just ended) is found.
      if (killed_at >= 0) {
        kill(-program, SIGKILL);
        signal_children(SIGKILL, nullptr);
        if (now - killed_at > 5'000'000'000LL) _exit(exit_code(program_status));
      } else {
        signal_children(SIGTERM, &terminated);
      }
    }
    timespec wait{0, 50'000'000};
    siginfo_t info{};
    const int got = sigtimedwait(&waited, &info, &wait);
    if (got == SIGTERM || got == SIGINT || got == SIGHUP || got == SIGQUIT) {
      // ironbench's stop() signals the group itself; its death (PR_SET_PDEATHSIG) looks the
      // same to siginfo, but the parent has changed then.
      stop(got == SIGTERM && info.si_code == SI_USER && info.si_pid == runner && getppid() == runner);
    }
  }
}

}  // namespace

child_process::child_process(child_settings settings) : settings_(std::move(settings)) {
  const int log = open(settings_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw error(fmt::format("cannot open log '{}': {}", settings_.log_path, std::strerror(errno)));
  if (!settings_.workdir.empty() && access(settings_.workdir.c_str(), X_OK) != 0) {
    close(log);
    throw error(fmt::format("working directory '{}': {}", settings_.workdir, std::strerror(errno)));
  }
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    close(log);
    throw error(fmt::format("cannot start '{}': {}", settings_.command, std::strerror(errno)));
  }
  const pid_t parent = getpid();
  keeper_ = fork();
  if (keeper_ < 0) {
    const int why = errno;
    for (const int fd : {log, report[0], report[1]}) close(fd);
    throw error(fmt::format("cannot start '{}': {}", settings_.command, std::strerror(why)));
  }
  if (keeper_ == 0) keep(settings_, log, parent, report[1]);
  close(log);
  close(report[1]);
  pid_t program = -1;
  ssize_t n = 0;
  do {
    n = read(report[0], &program, sizeof program);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof program) && program > 0) {
    pid_ = program;
  } else {
    // The keeper could not start the program: it has exited (or exits) by itself.
    (void)wait_for(5);
    if (!status_) kill(keeper_, SIGKILL);
    (void)wait_for(5);
    throw error(fmt::format("cannot start '{}': the process that runs it could not fork", settings_.command));
  }
}

child_process::~child_process() { (void)stop(); }

std::optional<int> child_process::exit_status() {
  if (status_ || keeper_ < 0) return status_;
  int raw = 0;
  const int r = waitpid(keeper_, &raw, WNOHANG);
  if (r == keeper_) status_ = status_of(raw);  // the keeper exits with the program's status
  return status_;
}

std::optional<int> child_process::wait_for(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!exit_status()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status_;
}

int child_process::stop() {
  if (keeper_ < 0) return status_.value_or(0);
  const auto& tag = settings_.tag;
  const auto alive = [&] {
    return !exit_status() || (pid_ > 0 && group_alive(pid_)) || (!tag.empty() && !tagged_processes(tag).empty());
  };
  const auto signal_all = [&](int signal) {
    if (pid_ > 0) kill(-pid_, signal);
    if (!exit_status()) kill(keeper_, signal);  // not once reaped: its pid may be another's
    if (!tag.empty()) {
      for (const int pid : tagged_processes(tag)) kill(pid, signal);
    }
  };
  if (alive()) {
    signal_all(SIGTERM);
    // The keeper sends SIGKILL itself at the end of the grace period; this one comes after,
    // for what it could not reach.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(std::min(settings_.stop_grace_s, 7 * 24 * 3600.0) + 2));
    while (alive() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (alive()) {
      signal_all(SIGKILL);
      // Until the leader is reaped and every process of its group is gone (a killed process
      // still runs until the kernel schedules its exit).
      const auto killed_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (alive() && std::chrono::steady_clock::now() < killed_by) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!tag.empty()) signal_all(SIGKILL);  // what a dying process started meanwhile
      }
    }
  }
  return status_.value_or(128 + SIGKILL);
}

std::string child_process::describe_status(int status) {
  if (status > 128) {
    const char* name = sigabbrev_np(status - 128);
    return fmt::format("killed by signal {}{}", status - 128, name != nullptr ? fmt::format(" (SIG{})", name) : "");
  }
  return fmt::format("exit status {}", status);
}

std::string tail_of_file(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string text;
  for (const auto& l : last) text += l + "\n";
  return text;
}

}  // namespace ironbench::experiment
