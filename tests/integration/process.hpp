// Runs the built ironbench binary as a child process and captures its output and exit code.
#pragma once

#include <string>
#include <vector>

namespace ironbench::testing {

struct process_result {
  int exit_code = -1;  ///< exit status, or 128 + signal number
  std::string out;
  std::string err;
};

/// Starts IRONBENCH_BINARY with `args`; returns its pid. Output goes to files named after
/// the pid in a temporary directory, read back by wait_for().
struct started_process {
  int pid = -1;
  std::string out_path;
  std::string err_path;
};

[[nodiscard]] started_process start_ironbench(const std::vector<std::string>& args);
/// Starts `program` (looked up in PATH when it has no slash) with `args`; exit code 127 when
/// it cannot be started.
[[nodiscard]] started_process start_program(const std::string& program, const std::vector<std::string>& args);
[[nodiscard]] process_result wait_for(const started_process& process);

/// start + wait.
[[nodiscard]] process_result run_ironbench(const std::vector<std::string>& args);

/// The whole content of a file (empty when it cannot be read).
[[nodiscard]] std::string read_file(const std::string& path);

/// A fresh empty directory under the system temporary directory.
[[nodiscard]] std::string make_temp_dir(const std::string& prefix);

/// Lines of `text` (without the final empty line).
[[nodiscard]] std::vector<std::string> lines_of(const std::string& text);

}  // namespace ironbench::testing
