#include "cli/train_handoff.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "ironbench/build_config.hpp"

namespace ironbench::cli {

void add_train_help_entry(CLI::App& app) {
  app.add_subcommand("train", build::have_torch
                                  ? "Training throughput on libtorch: mlp, gpt (small .. 13b), lora; DDP scaling"
                                  : "Training throughput (not in this build: it needs libtorch)")
      ->allow_extras();
}

std::string training_executable_path() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "ironbench-train";
  return (self.parent_path() / "ironbench-train").string();
}

int hand_over_to_training(int argc, char** argv) {
  const auto path = training_executable_path();
  if (!build::have_torch) {
    std::cerr << "ironbench: error: this ironbench was built without libtorch, so `train` is not available "
                 "(install libtorch-dev or PyTorch and reconfigure with -DIRONBENCH_TORCH=ON; see docs/training.md)\n";
    return exit_usage;
  }
  std::vector<char*> arguments(argv, argv + argc);
  arguments.push_back(nullptr);
  execv(path.c_str(), arguments.data());
  std::cerr << "ironbench: error: cannot start " << path << ": " << std::strerror(errno) << '\n';
  return exit_failure;
}

}  // namespace ironbench::cli
