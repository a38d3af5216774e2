// ironbench-train: the `ironbench train` command in its own executable, the only one linked
// with libtorch, so that every other command starts without loading it. `ironbench train ...`
// hands over to this program (cli/train_handoff.hpp).
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  using namespace ironbench;
  cli::invocation call{std::vector<std::string>(argv, argv + argc)};
  CLI::App app{"ironbench train: training throughput on libtorch", "ironbench"};
  app.require_subcommand(1);
  const auto action = cli::add_train_command(app, call);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "ironbench: error: " << e.what() << " (see ironbench train --help)\n";
    return cli::exit_usage;
  }
  try {
    return action();
  } catch (const usage_error& e) {
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return cli::exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return cli::exit_failure;
  }
}
