#include "cli/command_runner.hpp"

#include <iostream>

#include "cli/exit_codes.hpp"
#include "core/error.hpp"

namespace ironbench::cli {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const std::string& help_hint) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "ironbench: error: " << e.what() << " (see " << help_hint << ")\n";
    return exit_usage;
  }
  return std::nullopt;
}

int run_reporting_errors(const command_action& action) {
  try {
    return action();
  } catch (const usage_error& e) {
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return exit_failure;
  }
}

}  // namespace ironbench::cli
