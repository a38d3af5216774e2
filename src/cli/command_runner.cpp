#include "cli/command_runner.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "core/bounded_file.hpp"
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

namespace {

int run_action(const command_action& action) {
  try {
    return action();
  } catch (const usage_error& e) {
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const core::read_interrupted& e) {  // Ctrl-C while a pipe's writer was awaited
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return exit_interrupted;
  } catch (const std::exception& e) {
    std::cerr << "ironbench: error: " << e.what() << '\n';
    return exit_failure;
  }
}

}  // namespace

int run_reporting_errors(const command_action& action) {
  const int code = run_action(action);
  errno = 0;
  std::cout.flush();
  const bool stdio_failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!std::cout || stdio_failed) {
    const int why = errno;
    std::cerr << "ironbench: error: writing to standard output failed"
              << (why != 0 ? std::string(": ") + std::strerror(why) : std::string()) << '\n';
    return code == exit_ok ? exit_failure : code;
  }
  return code;
}

}  // namespace ironbench::cli
