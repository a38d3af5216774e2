// ironbench version: what this binary was built from and with.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/json_text.hpp"
#include "session/build_description.hpp"

namespace ironbench::cli {

command_action add_version_command(CLI::App& app) {
  app.add_subcommand("version", "Print the version, build options and libraries");
  return [] {
    std::cout << core::json_text(session::build_description(), 2) << '\n';
    return exit_ok;
  };
}

}  // namespace ironbench::cli
