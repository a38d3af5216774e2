// ironbench-train: the `ironbench train` command in its own executable, the only one linked
// with libtorch, so that every other command starts without loading it. `ironbench train ...`
// hands over to this program (cli/train_handoff.hpp).
#include <CLI/CLI.hpp>

#include "cli/command_runner.hpp"
#include "cli/commands.hpp"
#include "core/redaction.hpp"

int main(int argc, char** argv) {
  using namespace ironbench;
  // Recorded in every run: --header values and URL passwords never are (core/redaction.hpp).
  cli::invocation call{core::redact_command_line(std::vector<std::string>(argv, argv + argc))};
  CLI::App app{"ironbench train: training throughput on libtorch", "ironbench"};
  app.require_subcommand(1);
  const auto action = cli::add_train_command(app, call);
  if (const auto stop = cli::parse_command_line(app, argc, argv, "ironbench train --help")) return *stop;
  return cli::run_reporting_errors(action);
}
