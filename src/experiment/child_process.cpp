#include "experiment/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

child_process::child_process(child_settings settings) : settings_(std::move(settings)) {
  const int log = open(settings_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw error(fmt::format("cannot open log '{}': {}", settings_.log_path, std::strerror(errno)));
  if (!settings_.workdir.empty() && access(settings_.workdir.c_str(), X_OK) != 0) {
    close(log);
    throw error(fmt::format("working directory '{}': {}", settings_.workdir, std::strerror(errno)));
  }
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    close(log);
    throw error(fmt::format("cannot start '{}': {}", settings_.command, std::strerror(errno)));
  }
  if (pid_ == 0) {
    // The child: only async-signal-safe calls until exec, apart from setenv (single-threaded
    // copy of the parent; the parent's other threads do not exist here).
    setpgid(0, 0);
    if (!settings_.tag.empty()) {
      // Ends with ironbench, even when ironbench is killed (SIGKILL); a parent that died
      // before this line is seen by getppid().
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);
      setenv(service_tag_variable, settings_.tag.c_str(), 1);
    }
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (const auto& [k, v] : settings_.env) setenv(k.c_str(), v.c_str(), 1);
    if (!settings_.workdir.empty() && chdir(settings_.workdir.c_str()) != 0) _exit(127);
    execl("/bin/sh", "sh", "-c", settings_.command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid_, pid_);  // also here, so that the group exists before stop() can be called
  close(log);
}

child_process::~child_process() { (void)stop(); }

std::optional<int> child_process::exit_status() {
  if (status_ || pid_ < 0) return status_;
  int raw = 0;
  const int r = waitpid(pid_, &raw, WNOHANG);
  if (r == pid_) status_ = status_of(raw);
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
  if (pid_ < 0) return status_.value_or(0);
  const auto& tag = settings_.tag;
  const auto alive = [&] {
    return !exit_status() || group_alive(pid_) || (!tag.empty() && !tagged_processes(tag).empty());
  };
  const auto signal_all = [&](int signal) {
    kill(-pid_, signal);
    if (!tag.empty()) {
      for (const int pid : tagged_processes(tag)) kill(pid, signal);
    }
  };
  if (alive()) {
    signal_all(SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(settings_.stop_grace_s);
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
