// `ironbench train` runs in a separate executable, ironbench-train, built only where libtorch
// is found: loading libtorch costs every command half a second, and the rest of ironbench
// never needs it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace ironbench::cli {

/// Lists `train` in `ironbench --help` (the command line itself goes to ironbench-train).
void add_train_help_entry(CLI::App& app);

/// Where ironbench-train is expected: next to this executable.
[[nodiscard]] std::string training_executable_path();

/// Replaces this process with ironbench-train, passing argv unchanged (argv[1] is "train").
/// Returns only on failure, with the exit code after printing why (usage error when this build
/// has no libtorch).
int hand_over_to_training(int argc, char** argv);

}  // namespace ironbench::cli
