// ironbench import perftest FILE...: results of other tools as ironbench runs, so they are
// stored, reported and compared with ironbench's own.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/build_description.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/live_host.hpp"
#include "cli/run_outputs.hpp"
#include "core/error.hpp"
#include "report/output.hpp"
#include "results/perftest_import.hpp"

namespace ironbench::cli {
namespace {

struct import_arguments {
  std::string format;
  std::vector<std::string> files;
  output_options outputs;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("cannot read {}", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

int execute(const import_arguments& a, const invocation& call) {
  if (a.format != "perftest") throw usage_error(fmt::format("unknown import format '{}' (known: perftest)", a.format));
  const auto targets = parse_targets(a.outputs);
  prepare_results_dir(a.outputs);
  core::run_result run;
  run.tool = build_description();
  run.argv = call.argv;
  const auto now = std::chrono::system_clock::now();
  run.start_time = run.end_time = utc_time(now, "%Y-%m-%dT%H:%M:%SZ");
  for (const auto& file : a.files) {
    const auto report = results::parse_perftest(read_text(file), file);
    for (auto& c : results::perftest_cases(report, file)) run.cases.push_back(std::move(c));
  }
  // The host of an import is where it was imported, not where it was measured: say so.
  run.settings = {{"imported", a.format}, {"files", a.files},
                  {"note", "measured elsewhere; the host fingerprint is the importing machine's"}};
  const auto host = detect_live_host();
  run.host = host_json(host.fingerprint);
  core::settle_run_status(run);
  write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, now, std::cout,
                    [&](std::ostream& out) { report::write_console(run, out); });
  return exit_ok;
}

}  // namespace

command_action add_import_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand("import", "Import another tool's output as an ironbench run (perftest)");
  auto arguments = std::make_shared<import_arguments>();
  command->add_option("format", arguments->format, "perftest (ib_write_bw, ib_read_bw, ib_send_bw output)")->required();
  command->add_option("files", arguments->files, "Files holding the tool's output")->required();
  add_output_options(*command, arguments->outputs);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
