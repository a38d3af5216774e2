#include "experiment/experiment_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "experiment/experiment_report.hpp"
#include "experiment/repeat_statistics.hpp"
#include "experiment/service_pool.hpp"
#include "experiment/step_execution.hpp"
#include "experiment/step_failure.hpp"
#include "results/results_store.hpp"
#include "results/run_uuid.hpp"
#include "session/run_setup.hpp"

namespace ironbench::experiment {
namespace {

namespace fs = std::filesystem;

enum class point_result { done, failed, interrupted };

const char* to_string(point_result r) {
  switch (r) {
    case point_result::done: return "done";
    case point_result::failed: return "failed";
    case point_result::interrupted: return "interrupted";
  }
  return "failed";
}

std::int64_t stored_done(const results::results_store& store, const std::string& hash, const std::string& key) {
  results::run_filter filter;
  filter.tags = {{experiment_hash_tag, hash}, {experiment_point_tag, key}, {experiment_outcome_tag, "done"}};
  filter.limit = 1;
  const auto runs = store.list(filter);
  return runs.empty() ? 0 : runs.front().id;
}

json plan_json(const experiment_plan& plan, const experiment_point& point) {
  json values = json::object();
  for (const auto& [k, v] : point.values) values[k] = v;
  json steps = json::array();
  for (const auto& s : point.steps)
    steps.push_back({{"name", s.name}, {"kind", s.kind}, {"command", s.command_line()}});
  json variables = json::object();
  for (const auto& [k, v] : plan.variables) variables[k] = v;
  return {{"name", plan.name},    {"recipe", plan.recipe_path},   {"hash", plan.hash}, {"point", point.key},
          {"index", point.index}, {"points", plan.points.size()}, {"values", values},  {"repeat", plan.repeat},
          {"trim", plan.trim},    {"variables", variables},       {"steps", steps}};
}

// The cases of a step shown on the console, and the metrics of each.
constexpr std::size_t shown_cases = 4;
constexpr std::size_t shown_metrics = 3;

std::string case_line(const core::case_result& c) {
  std::string line = c.benchmark;
  if (c.status != core::case_status::valid) line += fmt::format(" [{}: {}]", core::to_string(c.status), c.reason);
  for (std::size_t i = 0; i < c.metrics.size() && i < shown_metrics; ++i) {
    line +=
        fmt::format("{} {} {:.4g} {}", i == 0 ? ":" : ",", c.metrics[i].name, c.metrics[i].value, c.metrics[i].unit);
  }
  return line;
}

// One point: its steps, `repeat` times; what it measured goes into `run`.
point_result measure_point(const experiment_plan& plan, const experiment_point& point, step_environment& env,
                           core::run_result& run) {
  std::vector<std::vector<core::case_result>> repeats;
  std::string current;
  auto result = point_result::done;
  core::case_result failure;
  try {
    env.services->keep_only(point.steps);
    int attempts = plan.repeat;
    for (const auto& step : point.steps) attempts = std::max(attempts, step.repeat);
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      repeats.emplace_back();
      for (const auto& step : point.steps) {
        current = step.name;
        if (env.cancel->load()) throw step_interrupted();
        if (step.kind != "service" && attempt > (step.repeat > 0 ? step.repeat : plan.repeat)) continue;
        if (step.kind == "service") {
          env.services->ensure_ready(step, (fs::path(env.log_dir) / (step.name + ".log")).string(), *env.cancel,
                                     *env.console);
          continue;
        }
        const auto start = std::chrono::steady_clock::now();
        auto out = run_measuring_step(step, attempt, env);
        *env.console << fmt::format("  {}{}: {} case{} in {:.1f} s\n", step.name,
                                    attempts > 1 ? fmt::format(" (repeat {})", attempt) : "", out.cases.size(),
                                    out.cases.size() == 1 ? "" : "s",
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        for (std::size_t i = 0; i < out.cases.size() && i < shown_cases; ++i) {
          *env.console << "    " << case_line(out.cases[i]) << "\n";
        }
        for (auto& c : out.cases) repeats.back().push_back(std::move(c));
        if (!out.settings.is_null()) run.settings["steps"][step.name] = std::move(out.settings);
        for (auto& d : out.devices) {
          const bool known = std::any_of(run.devices.begin(), run.devices.end(),
                                         [&](const core::device_info& k) { return k.id == d.id; });
          if (!known) run.devices.push_back(std::move(d));
        }
      }
    }
  } catch (const step_interrupted&) {
    result = point_result::interrupted;
  } catch (const step_failure& f) {
    result = point_result::failed;
    failure.reason = f.what();
    if (!f.log_excerpt().empty()) failure.notes["log_tail"] = f.log_excerpt();
  } catch (const std::exception& e) {  // a program that cannot start, a folder that cannot be made
    result = point_result::failed;
    failure.reason = fmt::format("step '{}': {}", current, e.what());
  }
  auto merged = merge_repeats(repeats, plan.trim);
  // A workload that could not measure (serve reached no server) failed the point too: it is
  // not stored as done, so a resume runs it again.
  const auto failed_case = std::find_if(merged.cases.begin(), merged.cases.end(), [](const core::case_result& c) {
    return c.status == core::case_status::failed;
  });
  if (result == point_result::done && failed_case != merged.cases.end()) result = point_result::failed;
  if (result != point_result::done) env.services->stop_all();
  run.cases = std::move(merged.cases);
  run.settings["experiment"]["repeat_statistics"] = std::move(merged.statistics);
  if (result == point_result::failed && !failure.reason.empty()) {
    failure.benchmark = current;
    failure.device = env.device;
    failure.status = core::case_status::failed;
    failure.notes["step"] = current;
    run.cases.push_back(std::move(failure));
  }
  return result;
}

// A matrix value as a case parameter: a whole number, a number, or the text.
core::axis_value parameter_of(const std::string& text) {
  char* end = nullptr;
  const auto whole = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0') return static_cast<std::int64_t>(whole);
  const double number = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return number;
  return text;
}

// Every case carries the point's matrix values as parameters (where it has none of that name),
// so that the cases of different points never pool in a comparison.
void add_matrix_parameters(const experiment_point& point, core::run_result& run) {
  for (auto& c : run.cases) {
    for (const auto& [name, value] : point.values) {
      if (!c.params.contains(name)) c.params.set(name, parameter_of(value));
    }
  }
}

// The first failed case of a failed point's run.
const core::case_result& first_failed(const core::run_result& run) {
  return *std::find_if(run.cases.begin(), run.cases.end(),
                       [](const core::case_result& c) { return c.status == core::case_status::failed; });
}

void write_json(const core::run_result& run, const std::string& path) {
  std::ofstream out(path);
  out << core::json_text(core::to_json(run), 2) << '\n';
  if (!out) throw error(fmt::format("cannot write {}", path));
}

}  // namespace

std::int64_t stored_point(const std::string& database, const std::string& hash, const std::string& point_key) {
  const results::results_store store(results::database_path(database));
  return stored_done(store, hash, point_key);
}

experiment_outcome run_experiment(const experiment_plan& plan, const experiment_settings& settings,
                                  const workload_table& workloads, const session::live_host& host,
                                  const std::atomic<bool>& cancel, std::ostream& console) {
  experiment_outcome outcome;
  const auto folder = fs::path(settings.results_dir) / "experiments" / (plan.name + "-" + plan.hash);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw usage_error(fmt::format("cannot create {}: {}", folder.string(), ec.message()));
  outcome.folder = folder.string();
  results::results_store store(results::database_path(settings.database));

  // Services an earlier run of this experiment left running (killed, crashed) are stopped
  // first: they would hold the ports and answer in place of this run's services.
  const auto record_path = (folder / "services.pids").string();
  service_record(record_path).stop_orphans(console);
  service_pool services(record_path);
  step_environment env;
  env.workloads = &workloads;
  env.ironbench_path = settings.ironbench_path;
  env.services = &services;
  env.cancel = &cancel;
  env.console = &console;
  env.device = host.devices.devices.empty() ? "" : host.devices.devices.front().id;

  const auto total = plan.points.size();
  for (const auto& point : plan.points) {
    const auto heading = fmt::format("point {}/{}: {}", point.index + 1, total, point.label());
    if (cancel.load()) {
      outcome.interrupted = true;
      break;
    }
    if (!settings.force) {
      if (const auto id = stored_done(store, plan.hash, point.key)) {
        console << fmt::format("{}: already stored as run {}, skipped (--force runs it again)\n", heading, id);
        ++outcome.skipped;
        continue;
      }
    }
    console << heading << "\n";
    const auto point_dir = folder / fmt::format("point-{:03}-{}", point.index + 1, point.key);
    fs::create_directories(point_dir, ec);
    if (ec) throw error(fmt::format("cannot create {}: {}", point_dir.string(), ec.message()));
    env.log_dir = point_dir.string();

    const auto start = std::chrono::system_clock::now();
    auto run = session::start_run(settings.argv, host, start);
    if (!host.devices.devices.empty()) run.devices = {host.devices.devices.front()};
    run.settings["experiment"] = plan_json(plan, point);
    const auto result = measure_point(plan, point, env, run);
    add_matrix_parameters(point, run);
    session::finish_run(run, host);
    for (const auto& [k, v] : plan.tags) run.tags[k] = v;
    for (const auto& [k, v] : point.values) run.tags[k] = v;
    run.tags[experiment_tag] = plan.name;
    run.tags[experiment_hash_tag] = plan.hash;
    run.tags[experiment_point_tag] = point.key;
    run.tags[experiment_outcome_tag] = to_string(result);
    if (result == point_result::interrupted) core::mark_interrupted(run, "the steps measured so far");
    core::settle_run_status(run);
    run.uuid = results::new_run_uuid();  // one identity in the point's file and the store

    const auto json_path = (folder / fmt::format("point-{:03}-{}.json", point.index + 1, point.key)).string();
    write_json(run, json_path);
    const auto id = store.save(run, fs::absolute(json_path).string());
    std::string summary;
    switch (result) {
      case point_result::done:
        summary = run.status == core::run_status::valid ? "done" : "done, INVALID: " + run.status_reason;
        ++(run.status == core::run_status::valid ? outcome.done : outcome.invalid);
        break;
      case point_result::failed:
        summary = "FAILED: " + first_failed(run).reason;
        ++outcome.failed;
        break;
      case point_result::interrupted:
        summary = "interrupted";
        outcome.interrupted = true;
        break;
    }
    console << fmt::format("  {}; stored as run {}\n", summary, id);
    if (result == point_result::failed) {
      const auto tail = first_failed(run).notes.find("log_tail");
      if (tail != first_failed(run).notes.end()) console << "  last lines of its log:\n" << tail->second;
    }
    if (outcome.interrupted) break;
  }
  services.stop_all();
  outcome.report = (folder / "report.html").string();
  write_experiment_report(plan, store, outcome.report);
  return outcome;
}

}  // namespace ironbench::experiment
