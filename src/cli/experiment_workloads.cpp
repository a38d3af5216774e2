#include "cli/experiment_workloads.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::cli {

experiment::workload_table experiment_workloads() { return {serve_workload(), bench_workload()}; }

void parse_step_arguments(CLI::App& app, const std::vector<std::string>& arguments, const std::string& name) {
  static const std::vector<std::string> experiment_owned = {"--json", "--csv", "--md",     "--results-dir",
                                                            "--db",   "--tag", "--no-save"};
  for (const auto& a : arguments) {
    const auto flag = a.substr(0, a.find('='));
    if (std::find(experiment_owned.begin(), experiment_owned.end(), flag) != experiment_owned.end()) {
      throw usage_error(
          fmt::format("ironbench {}: {} is the experiment's to set (its points are stored as runs), "
                      "not a step's",
                      name, flag));
    }
  }
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw usage_error(fmt::format("ironbench {}: {}", name, e.what()));
  }
}

}  // namespace ironbench::cli
