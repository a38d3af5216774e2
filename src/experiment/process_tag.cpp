#include "experiment/process_tag.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace ironbench::experiment {
namespace {

// Whether /proc/PID/stat says the process is a zombie (or dead): state is the field after ")".
bool is_zombie(const std::filesystem::path& proc) {
  std::ifstream in(proc / "stat");
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return true;
  const char state = stat[close + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace

std::string new_service_tag() {
  static std::atomic<unsigned> counter{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return fmt::format("{}-{}-{}", getpid(), std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(),
                     counter.fetch_add(1));
}

std::vector<int> tagged_processes(const std::string& tag) {
  const auto needle = std::string(service_tag_variable) + "=" + tag;
  std::vector<int> pids;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc", std::filesystem::directory_options::skip_permission_denied, ec)) {
    const auto name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::stoi(name);
    if (pid == getpid()) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    if (!in) continue;
    const std::string environ((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t at = 0;
    bool found = false;
    while (at < environ.size() && !found) {
      const auto end = environ.find('\0', at);
      const auto length = (end == std::string::npos ? environ.size() : end) - at;
      found = environ.compare(at, length, needle) == 0;
      if (end == std::string::npos) break;
      at = end + 1;
    }
    if (found && !is_zombie(entry.path())) pids.push_back(pid);
  }
  return pids;
}

std::vector<int> stop_tagged_processes(const std::string& tag, double grace_s) {
  const auto running = tagged_processes(tag);
  if (running.empty()) return running;
  for (const int pid : running) kill(pid, SIGTERM);
  const auto wait_until_gone = [&](std::chrono::steady_clock::time_point deadline) {
    while (!tagged_processes(tag).empty() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  wait_until_gone(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(grace_s)));
  for (const int pid : tagged_processes(tag)) kill(pid, SIGKILL);
  wait_until_gone(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  return running;
}

}  // namespace ironbench::experiment
