// ironbench import FORMAT FILE...: results of other tools (the formats of results/importer_table)
// as ironbench runs, so they are stored, reported and compared with ironbench's own.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "report/output.hpp"
#include "report/run_outputs.hpp"
#include "results/importer_table.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {
namespace {

struct import_arguments {
  results::import_request request;
  report::output_options outputs;
};

int execute(const import_arguments& a, const invocation& call) {
  const auto& request = a.request;
  results::check_import_request(request);
  const auto targets = report::parse_targets(a.outputs);
  report::prepare_results_dir(a.outputs);
  const auto now = std::chrono::system_clock::now();
  auto imported = results::import_run(request);
  const auto host = session::detect_live_host();
  auto run = session::start_run(call.argv, host, now);
  run.end_time = run.start_time;
  run.cases = std::move(imported.cases);
  // The host of an import is where it was imported, not where it was measured: say so.
  run.settings = {{"imported", request.format},
                  {"files", request.files},
                  {"note", "measured elsewhere; the host fingerprint is the importing machine's"}};
  if (!request.options.collective.empty()) run.settings["collective"] = request.options.collective;
  if (request.options.ranks > 0) run.settings["ranks"] = request.options.ranks;
  if (!request.device.empty()) run.settings["device"] = request.device;
  for (auto& [key, value] : imported.settings.items()) run.settings[key] = std::move(value);
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, now, std::cout, [&](std::ostream& out) {
    report::write_console(run, out);
    // As a collectives run prints its straggler report.
    const auto stragglers = run.settings.value("stragglers", json::object());
    for (const auto& line : stragglers.value("summary", json::array())) {
      if (line.is_string()) out << "# " << line.get<std::string>() << "\n";
    }
  });
  return exit_ok;
}

}  // namespace

command_action add_import_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand(
      "import", fmt::format("Import another tool's output as an ironbench run ({})", results::importer_names()));
  auto arguments = std::make_shared<import_arguments>();
  auto& request = arguments->request;
  const auto collective_formats = results::collective_importer_names();
  command->add_option("format", request.format, results::importer_help())->required();
  command->add_option("files", request.files, "Files holding the tool's output")->required();
  command->add_option(
      "--collective", request.options.collective,
      fmt::format("{}: the test (all_reduce, all_gather_perf, ...) when the output and file name do not say",
                  collective_formats));
  command->add_option("--ranks", request.options.ranks,
                      fmt::format("{}: the number of ranks when the output lists none", collective_formats));
  command->add_option("--device", request.device,
                      "The device the numbers were measured on (replaces the imported one)");
  add_output_options(*command, arguments->outputs);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
