// ironbench import FORMAT FILE...: results of other tools (perftest, vLLM bench serve,
// nccl-tests, BabelStream) as ironbench runs, so they are stored, reported and compared with
// ironbench's own.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "session/run_setup.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "session/live_host.hpp"
#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "report/output.hpp"
#include "results/babelstream_import.hpp"
#include "results/nccl_tests_import.hpp"
#include "results/perftest_import.hpp"
#include "results/vllm_import.hpp"

namespace ironbench::cli {
namespace {

const char* const known_formats = "perftest, vllm, nccl-tests, babelstream";

struct import_arguments {
  std::string format;
  std::vector<std::string> files;
  std::string collective;  // nccl-tests: when the output does not name its test
  int ranks = 0;           // nccl-tests: when the output lists no ranks
  std::string device;      // every format: the device the numbers were measured on
  report::output_options outputs;
};

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw usage_error(fmt::format("cannot read {}: a directory", path));
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("cannot read {}", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<core::case_result> import_file(const import_arguments& a, const std::string& file) {
  const auto text = read_text(file);
  if (a.format == "perftest") return results::perftest_cases(results::parse_perftest(text, file), file);
  if (a.format == "vllm") return results::vllm_cases(results::parse_vllm_results(text, file), file);
  if (a.format == "babelstream") return results::babelstream_cases(results::parse_babelstream(text, file), file);
  std::vector<core::case_result> cases;
  const results::nccl_tests_options options{a.collective, a.ranks};
  for (const auto& report : results::parse_nccl_tests(text, file)) {
    for (auto& c : results::nccl_tests_cases(report, file, options)) cases.push_back(std::move(c));
  }
  return cases;
}

int execute(const import_arguments& a, const invocation& call) {
  if (a.format != "perftest" && a.format != "vllm" && a.format != "nccl-tests" && a.format != "babelstream") {
    throw usage_error(fmt::format("unknown import format '{}' (known: {})", a.format, known_formats));
  }
  if (a.format != "nccl-tests" && (!a.collective.empty() || a.ranks != 0)) {
    throw usage_error(fmt::format("--collective and --ranks apply to nccl-tests, not {}", a.format));
  }
  if (a.ranks < 0) throw usage_error(fmt::format("--ranks must be positive, not {}", a.ranks));
  const auto targets = report::parse_targets(a.outputs);
  report::prepare_results_dir(a.outputs);
  const auto now = std::chrono::system_clock::now();
  std::vector<core::case_result> cases;
  for (const auto& file : a.files) {
    for (auto& c : import_file(a, file)) {
      if (!a.device.empty()) c.device = a.device;
      cases.push_back(std::move(c));
    }
  }
  const auto host = session::detect_live_host();
  auto run = session::start_run(call.argv, host, now);
  run.end_time = run.start_time;
  run.cases = std::move(cases);
  // The host of an import is where it was imported, not where it was measured: say so.
  run.settings = {{"imported", a.format}, {"files", a.files},
                  {"note", "measured elsewhere; the host fingerprint is the importing machine's"}};
  if (!a.collective.empty()) run.settings["collective"] = a.collective;
  if (a.ranks > 0) run.settings["ranks"] = a.ranks;
  if (!a.device.empty()) run.settings["device"] = a.device;
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, now, std::cout,
                    [&](std::ostream& out) { report::write_console(run, out); });
  return exit_ok;
}

}  // namespace

command_action add_import_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand(
      "import", "Import another tool's output as an ironbench run (perftest, vllm, nccl-tests, babelstream)");
  auto arguments = std::make_shared<import_arguments>();
  command
      ->add_option("format", arguments->format,
                   "perftest (ib_write_bw, ib_read_bw, ib_send_bw output), vllm (vllm bench serve --save-result JSON), "
                   "nccl-tests (nccl-tests/rccl-tests output or -J JSON), babelstream (BabelStream --csv output)")
      ->required();
  command->add_option("files", arguments->files, "Files holding the tool's output")->required();
  command->add_option("--collective", arguments->collective,
                      "nccl-tests: the test (all_reduce, all_gather_perf, ...) when the output and file name do not say");
  command->add_option("--ranks", arguments->ranks, "nccl-tests: the number of ranks when the output lists none");
  command->add_option("--device", arguments->device, "The device the numbers were measured on (replaces the imported one)");
  add_output_options(*command, arguments->outputs);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
