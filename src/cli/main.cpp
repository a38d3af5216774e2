// ironbench: parse the command line, dispatch to a subcommand, turn errors into exit codes.
#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <set>

#include "blas/openblas_kernels.hpp"
#include "cli/command_runner.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/train_handoff.hpp"
#include "core/redaction.hpp"
#include "ironbench/build_config.hpp"

int main(int argc, char** argv) {
  using namespace ironbench;
  blas::use_openblas_kernels_for_this_cpu(argv);  // before anything is measured, ironbench-train too
  if (argc > 1 && std::string(argv[1]) == "train") return cli::hand_over_to_training(argc, argv);
  // Recorded in every run: --header values and URL passwords never are (core/redaction.hpp).
  cli::invocation call{core::redact_command_line(std::vector<std::string>(argv, argv + argc))};
  CLI::App app{"ironbench: benchmarks for AI accelerator nodes (GEMM, memory bandwidth, ...)", "ironbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(build::version) + " (" + build::git_describe + ")");
  std::map<std::string, cli::command_action> actions{
      {"list", cli::add_list_command(app)},
      {"sysinfo", cli::add_sysinfo_command(app)},
      {"doctor", cli::add_doctor_command(app)},
      {"validate", cli::add_validate_command(app, call)},
      {"run", cli::add_run_command(app, call)},
      {"version", cli::add_version_command(app)},
      {"collectives", cli::add_collectives_command(app, call)},
      {"import", cli::add_import_command(app, call)},
      {"tp-infer", cli::add_tp_infer_command(app, call)},
      {"serve-sim", cli::add_serve_sim_command(app)},
      {"serve", cli::add_serve_command(app, call)},
      {"results", cli::add_results_command(app)},
      {"compare", cli::add_compare_command(app)},
      {"report", cli::add_report_command(app)},
      {"trend", cli::add_trend_command(app)},
      {"experiment", cli::add_experiment_command(app, call)},
  };
  cli::add_train_help_entry(app);
  const auto known = [&](const std::string& name) {  // a command's name or one of its aliases
    try {
      return app.get_subcommand(name) != nullptr;
    } catch (const CLI::OptionNotFound&) {
      return false;
    }
  };
  if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
    std::set<std::string> commands{"train"};  // handed over to ironbench-train above
    for (const auto& [name, action] : actions) commands.insert(name);
    std::string names;
    for (const auto& name : commands) names += (names.empty() ? "" : ", ") + name;
    std::cerr << "ironbench: error: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
    return cli::exit_usage;
  }
  if (const auto stop = cli::parse_command_line(app, argc, argv, "ironbench --help")) return *stop;
  for (const auto* sub : app.get_subcommands()) return cli::run_reporting_errors(actions.at(sub->get_name()));
  return cli::exit_usage;
}
