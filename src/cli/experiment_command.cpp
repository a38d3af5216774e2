// ironbench experiment plan FILE: an experiment recipe (docs/experiments.md) read, checked
// and planned: every point with its command lines, before anything is started.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "experiment/experiment_plan.hpp"
#include "experiment/plan_text.hpp"
#include "ironbench/build_config.hpp"
#include "session/live_host.hpp"

namespace ironbench::cli {
namespace {

struct experiment_arguments {
  std::string recipe;
  std::vector<std::string> sets;
};

// The host facts an experiment's hash names: the host and its devices.
std::string host_identity() {
  const auto host = session::detect_live_host();
  std::string identity = host.fingerprint.hostname;
  for (const auto& d : host.devices.devices) identity += "|" + d.id + "=" + d.name;
  return identity;
}

experiment::experiment_plan plan_of(const experiment_arguments& a) {
  std::vector<std::pair<std::string, std::string>> sets;
  for (const auto& s : a.sets) sets.push_back(experiment::parse_set(s));
  return experiment::plan_experiment(experiment::load_recipe(a.recipe), sets, build::version, host_identity());
}

void add_recipe_options(CLI::App& command, experiment_arguments& a) {
  command.add_option("recipe", a.recipe, "The recipe file (YAML)")->required();
  command.add_option("--set", a.sets, "VAR=VALUE: a variable's value (a matrix variable takes this one value)");
}

}  // namespace

command_action add_experiment_command(CLI::App& app) {
  auto* command = app.add_subcommand("experiment", "Experiments from recipe files (docs/experiments.md)");
  command->require_subcommand(1);
  auto a = std::make_shared<experiment_arguments>();
  auto* plan = command->add_subcommand("plan", "Check a recipe and print every point with its command lines");
  add_recipe_options(*plan, *a);
  return [a] {
    experiment::write_plan(plan_of(*a), std::cout);
    return exit_ok;
  };
}

}  // namespace ironbench::cli
