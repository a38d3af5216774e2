#include "experiment/step_execution.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "experiment/child_process.hpp"
#include "experiment/log_pattern.hpp"
#include "experiment/metric_extraction.hpp"
#include "experiment/step_failure.hpp"
#include "results/importer_table.hpp"

namespace ironbench::experiment {
namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point start) { return std::chrono::duration<double>(clock::now() - start).count(); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string log_path_of(const planned_step& step, int attempt, const step_environment& env) {
  return (std::filesystem::path(env.log_dir) / fmt::format("{}-{}.log", step.name, attempt)).string();
}

std::string timed_out(const planned_step& step) {
  return fmt::format("step '{}' timed out after {:g} s", step.name, step.timeout_s);
}

// Waits for `child` while watching the cancel flag, the services and the step's timeout;
// returns its exit status.
int wait_watching(child_process& child, const planned_step& step, const step_environment& env) {
  const auto start = clock::now();
  while (true) {
    if (const auto status = child.wait_for(0.05)) return *status;
    if (env.cancel->load()) {
      (void)child.stop();
      throw step_interrupted();
    }
    if (auto failure = env.services->casualty(step.name)) {
      (void)child.stop();
      throw *failure;
    }
    if (step.timeout_s > 0 && seconds_since(start) > step.timeout_s) {
      (void)child.stop();
      throw step_failure(timed_out(step), tail_of_file(child.log_path(), failure_log_lines));
    }
  }
}

// Where a command or import step runs: its workdir, else the point's folder (its outputs stay
// with the point's logs).
std::string workdir_of(const planned_step& step, const step_environment& env) {
  return step.workdir.empty() ? env.log_dir : step.workdir;
}

// The environment of a step's program: the step's own, and IRONBENCH_POINT_DIR.
std::vector<std::pair<std::string, std::string>> environment_of(const planned_step& step, const step_environment& env) {
  auto vars = step.env;
  vars.emplace_back("IRONBENCH_POINT_DIR", std::filesystem::absolute(env.log_dir).string());
  return vars;
}

// Runs `command` as the step's program; returns its log's text after checking the exit
// status and the fail_on patterns.
std::string run_program(const std::string& command, const planned_step& step, const std::string& log_path,
                        const step_environment& env) {
  child_settings settings;
  settings.command = command;
  settings.env = environment_of(step, env);
  settings.workdir = workdir_of(step, env);
  settings.log_path = log_path;
  child_process child(settings);
  const int status = wait_watching(child, step, env);
  if (status != 0) {
    throw step_failure(fmt::format("step '{}' ended with {}", step.name, child_process::describe_status(status)),
                       tail_of_file(log_path, failure_log_lines));
  }
  auto log = read_file(log_path);
  for (const auto& pattern : step.fail_on) {
    const log_pattern failing(pattern, "fail_on");
    const auto line = failing.first_matching_line(log);
    if (!line.empty() || failing.found_in(log)) {
      throw step_failure(fmt::format("step '{}': its output matches fail_on /{}/: {}", step.name, pattern, line),
                         tail_of_file(log_path, failure_log_lines));
    }
  }
  return log;
}

std::string with_launcher(const planned_step& step, const std::string& command) {
  return step.launcher.empty() ? command : step.launcher + " " + command;
}

step_output command_step(const planned_step& step, int attempt, const step_environment& env) {
  const auto log_path = log_path_of(step, attempt, env);
  const auto log = run_program(with_launcher(step, step.command), step, log_path, env);
  auto found = extract_metrics(step.metrics, log, workdir_of(step, env));
  if (!found.missing.empty()) {
    throw step_failure(fmt::format("step '{}': {}", step.name, found.missing.front()),
                       tail_of_file(log_path, failure_log_lines));
  }
  core::case_result c;
  c.benchmark = step.name;
  c.device = env.device;
  c.metrics = std::move(found.metrics);
  c.notes["command"] = step.command_line();
  return {{std::move(c)}, nullptr, {}};
}

step_output import_step(const planned_step& step, int attempt, const step_environment& env) {
  const auto log_path = log_path_of(step, attempt, env);
  if (!step.command.empty()) (void)run_program(with_launcher(step, step.command), step, log_path, env);
  results::import_request request;
  request.format = step.format;
  request.files = {path_in(workdir_of(step, env), step.file)};
  try {
    results::check_import_request(request);
    return {results::import_cases(request), nullptr, {}};
  } catch (const usage_error& e) {
    throw step_failure(fmt::format("step '{}': {}", step.name, e.what()), tail_of_file(log_path, failure_log_lines));
  }
}

// collectives and train: `ironbench` itself under the step's launcher, read back from --json.
step_output child_ironbench_step(const planned_step& step, int attempt, const step_environment& env) {
  const auto log_path = log_path_of(step, attempt, env);
  const auto json_path =
      std::filesystem::absolute(std::filesystem::path(env.log_dir) / fmt::format("{}-{}.json", step.name, attempt))
          .string();
  std::filesystem::remove(json_path);
  std::string command = shell_quoted(env.ironbench_path);
  for (const auto& a : step.ironbench_arguments()) command += " " + shell_quoted(a);
  command += " --no-save --json " + shell_quoted(json_path);
  child_settings settings;
  settings.command = with_launcher(step, command);
  settings.env = environment_of(step, env);
  settings.workdir = step.workdir;
  settings.log_path = log_path;
  child_process child(settings);
  const int status = wait_watching(child, step, env);
  // Exit 1 with a result: measured, some case invalid; the cases say which.
  if ((status != 0 && status != 1) || !std::filesystem::exists(json_path)) {
    throw step_failure(fmt::format("step '{}' ended with {}{}", step.name, child_process::describe_status(status),
                                   std::filesystem::exists(json_path) ? "" : " and wrote no result"),
                       tail_of_file(log_path, failure_log_lines));
  }
  try {
    auto run = core::read_run_file(json_path);
    return {std::move(run.cases), std::move(run.settings), std::move(run.devices)};
  } catch (const std::exception& e) {
    throw step_failure(fmt::format("step '{}': {}", step.name, e.what()), tail_of_file(log_path, failure_log_lines));
  }
}

// serve and bench: measured in this process while a watcher thread stops the measurement when
// the experiment is interrupted, a service exits or the step runs out of time.
step_output in_process_step(const planned_step& step, int attempt, const in_process_workload& workload,
                            const step_environment& env) {
  const auto log_path = log_path_of(step, attempt, env);
  std::ofstream log(log_path, std::ios::app);
  if (!log) throw error(fmt::format("cannot write {}", log_path));
  auto arguments = step.ironbench_arguments();
  arguments.erase(arguments.begin());  // the command's name
  std::atomic<bool> stop{false}, finished{false};
  std::optional<step_failure> failure;
  bool interrupted = false;
  std::thread watcher([&] {
    const auto start = clock::now();
    while (!finished.load()) {
      if (env.cancel->load()) {
        interrupted = true;
      } else if (auto died = env.services->casualty(step.name)) {
        failure = std::move(died);
      } else if (step.timeout_s > 0 && seconds_since(start) > step.timeout_s) {
        failure = step_failure(timed_out(step), "");
      }
      if (interrupted || failure) {
        stop = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  core::run_result run;
  try {
    run = workload.measure(arguments, stop, log);
  } catch (...) {
    finished = true;
    watcher.join();
    if (interrupted) throw step_interrupted();
    if (failure) throw step_failure(*failure);
    throw;
  }
  finished = true;
  watcher.join();
  if (interrupted) throw step_interrupted();
  if (failure) throw step_failure(*failure);
  return {std::move(run.cases), std::move(run.settings), std::move(run.devices)};
}

}  // namespace

step_output run_measuring_step(const planned_step& step, int attempt, const step_environment& env) {
  step_output out;
  if (const auto* workload = find_workload(*env.workloads, step.kind)) {
    try {
      out = in_process_step(step, attempt, *workload, env);
    } catch (const usage_error& e) {
      throw step_failure(fmt::format("step '{}': {}", step.name, e.what()), "");
    }
  } else if (step.kind == "collectives" || step.kind == "train") {
    out = child_ironbench_step(step, attempt, env);
  } else if (step.kind == "command") {
    out = command_step(step, attempt, env);
  } else if (step.kind == "import") {
    out = import_step(step, attempt, env);
  } else {
    throw error(fmt::format("step '{}': kind '{}' cannot be measured", step.name, step.kind));
  }
  for (auto& c : out.cases) c.notes["step"] = step.name;
  return out;
}

}  // namespace ironbench::experiment
