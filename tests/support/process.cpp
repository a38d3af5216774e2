#include "process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace ironbench::testing {

const char* ironbench_binary() { return IRONBENCH_BINARY; }

started_process start_program(const std::string& program, const std::vector<std::string>& args) {
  static const std::string dir = make_temp_dir("ironbench_process_");
  static int counter = 0;
  started_process p;
  p.out_path = dir + "/out" + std::to_string(++counter);
  p.err_path = dir + "/err" + std::to_string(counter);
  p.pid = fork();
  if (p.pid < 0) throw std::runtime_error("fork failed");
  if (p.pid == 0) {
    const int out = open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err = open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    std::string binary = program;
    argv.push_back(binary.data());
    std::vector<std::string> copies(args);
    for (auto& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(binary.c_str(), argv.data());
    _exit(127);
  }
  return p;
}

started_process start_ironbench(const std::vector<std::string>& args) { return start_program(IRONBENCH_BINARY, args); }

process_result wait_for(const started_process& process) {
  int status = 0;
  waitpid(process.pid, &status, 0);
  process_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(process.out_path);
  r.err = read_file(process.err_path);
  return r;
}

process_result run_ironbench(const std::vector<std::string>& args) { return wait_for(start_ironbench(args)); }

process_result run_program(const std::string& program, const std::vector<std::string>& args) {
  return wait_for(start_program(program, args));
}

bool wait_for_output(const started_process& process, const std::function<bool(const std::string&)>& seen,
                     double timeout_s, bool from_stderr) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    if (seen(read_file(from_stderr ? process.err_path : process.out_path))) return true;
    siginfo_t info{};
    const bool ended =
        waitid(P_PID, static_cast<id_t>(process.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
    if (ended) return seen(read_file(from_stderr ? process.err_path : process.out_path));
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool have_program(const std::string& program) {
  return std::system(("command -v '" + program + "' > /dev/null 2>&1").c_str()) == 0;
}

bool have_chromium() { return wait_for(start_program("chromium", {"--version"})).exit_code == 0; }

}  // namespace ironbench::testing
