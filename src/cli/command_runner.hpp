// What both executables (ironbench, ironbench-train) do around a command: parse the command
// line, and turn whatever a command throws into one line on stderr and an exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/commands.hpp"

namespace ironbench::cli {

/// Parses argv into `app`. Returns the exit code to stop with (after --help or --version, or
/// a usage error printed with `help_hint`), or nullopt when the command should run.
[[nodiscard]] std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const std::string& help_hint);

/// Runs `action`: usage_error becomes exit_usage, any other exception exit_failure, each
/// reported as "ironbench: error: ..." in one line. Then flushes standard output: when any
/// write to it failed (a full disk, a closed pipe, /dev/full), the data is lost, so that is an
/// error too (exit_failure, unless the action already failed).
[[nodiscard]] int run_reporting_errors(const command_action& action);

}  // namespace ironbench::cli
