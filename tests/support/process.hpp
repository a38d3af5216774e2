// Runs the built ironbench binary, or any program, as a child process and captures its
// standard output, standard error and exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "files.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {

/// What a finished child process left.
struct process_result {
  int exit_code = -1;  ///< exit status, or 128 + signal number
  std::string out;     ///< its standard output
  std::string err;     ///< its standard error
};

/// A started child process. Its output goes to files in a temporary directory, read back by
/// wait_for() (or while it runs, with read_file).
struct started_process {
  int pid = -1;
  std::string out_path;  ///< file receiving its standard output
  std::string err_path;  ///< file receiving its standard error
};

/// The ironbench binary the tests run (IRONBENCH_BINARY).
[[nodiscard]] const char* ironbench_binary();

/// Starts the ironbench binary with `args`.
[[nodiscard]] started_process start_ironbench(const std::vector<std::string>& args);
/// Starts `program` (looked up in PATH when it has no slash) with `args`; exit code 127 when
/// it cannot be started.
[[nodiscard]] started_process start_program(const std::string& program, const std::vector<std::string>& args);
/// Waits for `process` to end and reads what it wrote.
[[nodiscard]] process_result wait_for(const started_process& process);

/// start_ironbench + wait_for.
[[nodiscard]] process_result run_ironbench(const std::vector<std::string>& args);
/// start_program + wait_for.
[[nodiscard]] process_result run_program(const std::string& program, const std::vector<std::string>& args);

/// Waits until what `process` has written to its standard error (`from_stderr`, else its
/// standard output) satisfies `seen`: true then, false where the process ended first or
/// `timeout_s` passed. The timeout is a hang guard, not a judgement of time: what a test waits
/// for comes far sooner, and the test then acts on evidence (a line printed) instead of after a
/// fixed delay, which a loaded machine's slow start would use up.
[[nodiscard]] bool wait_for_output(const started_process& process, const std::function<bool(const std::string&)>& seen,
                                   double timeout_s = 120, bool from_stderr = true);

/// Whether `program` is found in PATH (`command -v`).
[[nodiscard]] bool have_program(const std::string& program);

/// Whether a headless Chromium runs here: `chromium --version` exits 0. A `chromium` command
/// that only offers to install the browser exits non-zero, and does not count.
[[nodiscard]] bool have_chromium();

}  // namespace ironbench::testing
