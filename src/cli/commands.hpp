// The subcommands of `ironbench`. Each adds itself to the CLI11 application and returns the
// action to run once the command line parsed. main() only parses and dispatches.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

namespace ironbench::cli {

/// Runs a parsed subcommand and returns the process exit code.
using command_action = std::function<int()>;

/// Everything the commands share: the parsed arguments as typed.
struct invocation {
  std::vector<std::string> argv;
};

command_action add_list_command(CLI::App& app);
command_action add_sysinfo_command(CLI::App& app);
command_action add_doctor_command(CLI::App& app);
command_action add_validate_command(CLI::App& app, const invocation& call);
command_action add_run_command(CLI::App& app, const invocation& call);
command_action add_version_command(CLI::App& app);
command_action add_collectives_command(CLI::App& app, const invocation& call);
command_action add_import_command(CLI::App& app, const invocation& call);
command_action add_tp_infer_command(CLI::App& app, const invocation& call);
command_action add_serve_sim_command(CLI::App& app);
command_action add_serve_command(CLI::App& app, const invocation& call);
command_action add_results_command(CLI::App& app);
command_action add_compare_command(CLI::App& app);
command_action add_report_command(CLI::App& app);
command_action add_trend_command(CLI::App& app);
command_action add_experiment_command(CLI::App& app, const invocation& call);
/// In the ironbench-train executable only (it links libtorch).
command_action add_train_command(CLI::App& app, const invocation& call);

}  // namespace ironbench::cli
