#include "cli/hung_run.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace ironbench::cli {
namespace {

void mark_hung(core::run_result& run, const comm::hang_verdict& verdict, double timeout_s, std::string_view kept) {
  run.status = core::run_status::interrupted;
  run.status_reason = fmt::format("ended by the watchdog: {}; {} are kept", comm::hang_line(verdict, timeout_s), kept);
  run.settings["hang"] = comm::hang_json(verdict, timeout_s);
}

}  // namespace

void write_hung_run(core::run_result& run, const comm::hang_verdict& verdict, double timeout_s, std::string_view kept,
                    const hung_run_outputs& to) {
  mark_hung(run, verdict, timeout_s, kept);
  // The rank that reports when rank 0 died did not prepare the results folder (its node's).
  if (!to.options.no_save) {
    std::error_code ignored;
    std::filesystem::create_directories(to.options.results_dir, ignored);
  }
  const std::function<void(std::ostream&)> nothing = [](std::ostream&) {};
  report::write_run_outputs(run, to.targets, to.options, to.hostname, to.start, std::cout,
                            to.console ? to.console : nothing);
  std::cout.flush();
}

}  // namespace ironbench::cli
