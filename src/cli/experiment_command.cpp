// ironbench experiment plan|run|list: experiment recipes (docs/experiments.md) checked and
// planned before anything starts, run point by point with every point stored as a run, and
// the stored experiments listed.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/experiment_workloads.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "experiment/experiment_catalog.hpp"
#include "experiment/experiment_plan.hpp"
#include "experiment/experiment_runner.hpp"
#include "experiment/plan_text.hpp"
#include "ironbench/build_config.hpp"
#include "session/live_host.hpp"

namespace ironbench::cli {
namespace {

struct experiment_arguments {
  std::string recipe;
  std::vector<std::string> sets;
  bool dry_run = false, force = false;
  std::string results_dir = "ironbench-results", database;
};

// The host facts an experiment's hash names: the host and its devices.
std::string host_identity(const session::live_host& host) {
  std::string identity = host.fingerprint.hostname;
  for (const auto& d : host.devices.devices) identity += "|" + d.id + "=" + d.name;
  return identity;
}

std::string own_executable() {
  std::array<char, 4096> path{};
  const auto n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) throw error("cannot find this executable (/proc/self/exe)");
  return {path.data(), static_cast<std::size_t>(n)};
}

experiment::experiment_plan plan_of(const experiment_arguments& a, const session::live_host& host) {
  std::vector<std::pair<std::string, std::string>> sets;
  for (const auto& s : a.sets) sets.push_back(experiment::parse_set(s));
  return experiment::plan_experiment(experiment::load_recipe(a.recipe), sets, build::version, host_identity(host),
                                     {{"ironbench", own_executable()}});
}

int run(const experiment_arguments& a, const invocation& call) {
  const auto host = session::detect_live_host();
  const auto plan = plan_of(a, host);
  const auto workloads = experiment_workloads();
  experiment::check_workload_options(plan, workloads);
  if (a.dry_run) {
    experiment::write_plan(plan, std::cout);
    experiment::write_stored_points(plan, a.database, a.force, std::cout);
    return exit_ok;
  }
  experiment::experiment_settings settings;
  settings.force = a.force;
  settings.results_dir = a.results_dir;
  settings.database = a.database;
  settings.argv = call.argv;
  settings.ironbench_path = own_executable();
  std::cout << fmt::format("experiment {} (hash {}): {} point{} x {} repeat{}\n", plan.name, plan.hash,
                           plan.points.size(), plan.points.size() == 1 ? "" : "s", plan.repeat,
                           plan.repeat == 1 ? "" : "s");
  std::cout << std::unitbuf;  // progress lines reach a log or a pipe as they happen
  const auto& cancel = install_interrupt_flag();
  const auto outcome = experiment::run_experiment(plan, settings, workloads, host, cancel, std::cout);
  std::cout << fmt::format(
      "experiment {}: {} done, {} invalid, {} failed, {} already stored{}\nlogs and results: {}\n"
      "report: {}\n",
      plan.name, outcome.done, outcome.invalid, outcome.failed, outcome.skipped,
      outcome.interrupted ? ", interrupted" : "", outcome.folder, outcome.report);
  if (outcome.interrupted) return exit_interrupted;
  return outcome.failed > 0 || outcome.invalid > 0 ? exit_failure : exit_ok;
}

void add_recipe_options(CLI::App& command, experiment_arguments& a) {
  command.add_option("recipe", a.recipe, "The recipe file (YAML)")->required();
  command.add_option("--set", a.sets, "VAR=VALUE: a variable's value (a matrix variable takes this one value)");
}

void add_store_options(CLI::App& command, experiment_arguments& a) { add_database_option(command, a.database); }

}  // namespace

command_action add_experiment_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand("experiment", "Experiments from recipe files (docs/experiments.md)");
  command->require_subcommand(1);
  auto a = std::make_shared<experiment_arguments>();
  auto* plan = command->add_subcommand("plan", "Check a recipe and print every point with its command lines");
  add_recipe_options(*plan, *a);
  auto* run_command = command->add_subcommand("run", "Run every point of a recipe and store each as a run");
  add_recipe_options(*run_command, *a);
  run_command->add_flag("--dry-run", a->dry_run, "Check and print the plan and which points are stored; start nothing");
  run_command->add_flag("--force", a->force, "Run points already stored for this experiment hash again");
  run_command->add_option("--results-dir", a->results_dir, "Logs and JSON go to DIR/experiments/NAME-HASH/")
      ->capture_default_str();
  add_store_options(*run_command, *a);
  auto* list = command->add_subcommand("list", "List the experiments stored in the results database");
  add_store_options(*list, *a);
  return [a, plan, run_command, &call] {
    if (plan->parsed()) {
      experiment::write_plan(plan_of(*a, session::detect_live_host()), std::cout);
      return exit_ok;
    }
    if (run_command->parsed()) return run(*a, call);
    experiment::write_experiment_list(experiment::stored_experiments(a->database), a->database, std::cout);
    return exit_ok;
  };
}

}  // namespace ironbench::cli
