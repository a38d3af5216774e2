#include "experiment/service_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/text.hpp"
#include "experiment/port_check.hpp"
#include "experiment/process_tag.hpp"
#include "experiment/service_readiness.hpp"

namespace ironbench::experiment {
namespace {

// Everything that makes two service steps the same running service.
std::string identity_of(const planned_step& s) {
  std::string id = s.name + "\n" + s.command + "\n" + s.workdir + "\n" + s.launcher + "\n" + s.ready_url + "\n" +
                   s.ready_model + "\n" + s.ready_log_regex;
  for (const auto& [k, v] : s.env) id += "\n" + k + "=" + v;
  return id;
}

std::string died(const std::string& name, int status, const std::string& when) {
  return fmt::format("service '{}' exited ({}) {}", name, child_process::describe_status(status), when);
}

}  // namespace

service_pool::~service_pool() { stop_all(); }

void service_pool::keep_only(const std::vector<planned_step>& steps) {
  std::vector<std::string> wanted;
  for (const auto& s : steps) {
    if (s.kind == "service") wanted.push_back(identity_of(s));
  }
  std::erase_if(running_, [&](service& s) {
    if (std::find(wanted.begin(), wanted.end(), s.identity) != wanted.end()) return false;
    stop(s);
    return true;
  });
}

void service_pool::ensure_ready(const planned_step& step, const std::string& log_path, const std::atomic<bool>& cancel,
                                std::ostream& console) {
  const auto identity = identity_of(step);
  for (auto& s : running_) {
    if (s.identity == identity && !s.process->exit_status()) {
      console << fmt::format("  {}: still running (pid {})\n", step.name, s.process->pid());
      return;
    }
  }
  std::erase_if(running_, [&](service& s) {
    if (s.name != step.name) return false;
    stop(s);
    return true;
  });
  if (!step.ready_url.empty()) {
    if (const auto taken = address_in_use(step.ready_url)) {
      throw step_failure(fmt::format("{} already answers before service '{}' starts: another server (or one an "
                                     "earlier run left) would be measured in its place; stop it or choose another "
                                     "port",
                                     *taken, step.name),
                         "");
    }
  }
  const auto tag = new_service_tag();
  child_settings settings;
  settings.tag = tag;
  settings.command = step.launcher.empty() ? step.command : step.launcher + " " + step.command;
  settings.env = step.env;
  settings.workdir = step.workdir;
  settings.log_path = log_path;
  settings.stop_grace_s = step.stop_grace_s;
  auto process = std::make_unique<child_process>(settings);
  record_.add(tag, step.name);
  const auto give_up = [&] {
    (void)process->stop();
    record_.remove(tag);
  };
  console << fmt::format("  {}: started (pid {}), log {}\n", step.name, process->pid(), log_path);

  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::string problem = "not checked yet";
  while (true) {
    if (cancel.load()) {
      give_up();
      throw step_interrupted();
    }
    if (const auto status = process->exit_status()) {
      give_up();
      throw step_failure(died(step.name, *status, "before it was ready"), tail_of_file(log_path, failure_log_lines));
    }
    const double left = step.ready_timeout_s - elapsed();
    if (left <= 0) {
      give_up();
      throw step_failure(
          fmt::format("service '{}' was not ready within {:g} s: {}", step.name, step.ready_timeout_s, problem),
          tail_of_file(log_path, failure_log_lines));
    }
    problem = readiness_problem(step, log_path, std::clamp(left, 0.5, 30.0));
    if (problem.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  console << fmt::format("  {}: ready after {:.1f} s\n", step.name, elapsed());
  running_.push_back({step.name, identity, tag, std::move(process)});
}

std::optional<step_failure> service_pool::casualty(const std::string& running_step) {
  for (auto it = running_.begin(); it != running_.end(); ++it) {
    if (const auto status = it->process->exit_status()) {
      stop(*it);  // anything it left in its group or with its tag
      step_failure failure(died(it->name, *status, "during step '" + running_step + "'"),
                           tail_of_file(it->process->log_path(), failure_log_lines));
      running_.erase(it);
      return failure;
    }
  }
  return std::nullopt;
}

void service_pool::stop_all() {
  // Stopped in reverse order of start: a later service may use an earlier one.
  while (!running_.empty()) {
    stop(running_.back());
    running_.pop_back();
  }
}

void service_pool::stop(service& s) {
  (void)s.process->stop();
  record_.remove(s.tag);
}

}  // namespace ironbench::experiment
