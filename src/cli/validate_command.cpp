// ironbench validate: this machine's suite for a level, each check judged PASS, WARN or FAIL
// against its expected value (validate/), with exit code 0 (pass), 1 (warn), 2 (fail or error).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/burn_in_options.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "cli/progress_printer.hpp"
#include "cli/serve_ranks.hpp"
#include "cli/side_selection.hpp"
#include "comm/launch_environment.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "validate/burn_in.hpp"
#include "validate/node_table.hpp"
#include "validate/pairwise_check.hpp"
#include "validate/scheduler_formats.hpp"
#include "validate/validation.hpp"
#include "validate/validation_output.hpp"

namespace ironbench::cli {
namespace {

struct validate_arguments {
  std::string level = "quick";
  std::string devices = "all";
  std::string expect;
  std::string format = "table";
  double expect_factor = 1.0;
  std::optional<double> warn_below;
  std::optional<double> fail_below;
  report::output_options outputs;
  bool quiet = false;
  burn_in_arguments burn_in;
};

void add_options(CLI::App& command, validate_arguments& a) {
  command
      .add_option("--level", a.level,
                  "quick (under a minute), standard (5 min), long (30 min on one GPU) or burn-in (--duration)")
      ->capture_default_str();
  command.add_option("--device", a.devices, "Devices to validate (as `run` takes them)")->capture_default_str();
  command.add_option("--expect", a.expect,
                     "Expect what reference runs measured instead of data/expected_values.json: ref:NAME (a "
                     "published baseline) or tag:KEY=VALUE (stored runs, e.g. tag:fleet=golden)");
  command.add_option("--expect-factor", a.expect_factor, "Multiply the reference's median by this")
      ->capture_default_str();
  command.add_option("--warn-below", a.warn_below,
                     "WARN below this times the expected value (default: the table's 0.9)");
  command.add_option("--fail-below", a.fail_below,
                     "FAIL below this times the expected value (default: the table's 0.75)");
  std::string formats = "table (the checks, for people)";
  for (const auto& f : validate::scheduler_formats()) formats += fmt::format(", {} ({})", f.name, f.help);
  command
      .add_option("--format", a.format,
                  "What stdout gets: " + formats + "; with a scheduler's format the table goes to stderr")
      ->capture_default_str();
  add_burn_in_options(command, a.burn_in);
  add_output_options(command, a.outputs);
  add_quiet_flag(command, a.quiet);
}

int execute(validate_arguments a, const invocation& call) {
  validate::validation_settings s;
  s.lvl = validate::parse_level(a.level);
  s.devices = a.devices;
  if (!a.expect.empty()) s.expect = a.expect;
  s.expect_factor = a.expect_factor;
  s.database = a.outputs.database;
  s.warn_below = a.warn_below;
  s.fail_below = a.fail_below;
  apply_burn_in_options(a.burn_in, s);
  // Ranks of one job on this host share its memory, cores and GPUs (validate/rank_share.hpp).
  if (const auto launch = comm::detect_launch(); launch.local_rank_known && launch.local_size > 1) {
    s.share = {launch.local_rank, launch.local_size};
  }
  const auto* scheduler = validate::find_scheduler_format(a.format);  // nullptr: the table
  // --md writes the validation's Markdown; --json and --csv the run (whose settings hold it).
  const auto markdown = a.outputs.markdown_path;
  a.outputs.markdown_path.clear();
  const auto targets = report::parse_targets(a.outputs);
  if (scheduler != nullptr && &report::console_stream(targets) == &std::cerr) {
    throw usage_error(fmt::format("--format {} writes stdout, and so does another output ('-')", a.format));
  }
  report::prepare_results_dir(a.outputs);
  // Under mpirun or srun every rank validates its node and rank 0 reports them all.
  const auto group = serve_client_ranks();
  const auto start = std::chrono::system_clock::now();
  auto validation =
      s.lvl == validate::level::burn_in
          ? validate::burn_in_this_machine(s, call.argv, &install_interrupt_flag(),
                                           [](const std::string& line) { std::cerr << line << std::endl; })
          : validate::validate_this_machine(s, call.argv, &install_interrupt_flag(),
                                            progress_printer(std::cerr, a.quiet));
  // standard and long, every rank
  validate::add_pairwise_check(validation, group.several(), group.rank, &install_interrupt_flag());
  const auto hostname = validation.run.host.value("hostname", std::string());
  std::optional<validate::node_table> nodes;
  if (group.several()) {
    const auto texts =
        group.gather(core::json_text(json{{"host", hostname}, {"validation", validate::to_json(validation)}}));
    if (group.rank != 0) return exit_ok;  // rank 0 reports every node, with the exit code of the worst
    std::vector<std::string> hosts;
    for (const auto& t : texts) hosts.push_back(json::parse(t).value("host", std::string()));
    const auto labels = validate::node_labels(hosts);
    std::vector<validate::node_report> reports;
    for (std::size_t i = 0; i < texts.size(); ++i)
      reports.push_back({labels[i], json::parse(texts[i]).at("validation")});
    nodes = validate::merge_nodes(std::move(reports));
    validation.run.settings["validation_nodes"] = validate::to_json(*nodes);
  }
  // With a scheduler's format stdout holds only its lines; the table goes to stderr.
  auto& console = scheduler != nullptr ? std::cerr : std::cout;
  report::write_run_outputs(validation.run, targets, a.outputs, hostname, start, console, [&](std::ostream& out) {
    validate::write_validation_console(validation, out);
    if (nodes) validate::write_node_table(*nodes, out);
  });
  if (!markdown.empty()) {
    std::ostringstream text;
    validate::write_validation_markdown(validation, text);
    write_text_output(markdown, text.str());
  }
  if (scheduler != nullptr) {
    scheduler->write(validate::scheduler_nodes(validation, nodes ? &*nodes : nullptr), std::cout);
    std::cout.flush();
  }
  const int code = validation.run.status == core::run_status::interrupted
                       ? exit_interrupted
                       : validate::exit_code_of(nodes ? nodes->overall : validation.overall);
  if (validation.left_running) {
    // A hung case's thread may never return, nor the GPU runtime's teardown: what was measured
    // is written; end here.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  }
  return code;
}

}  // namespace

command_action add_validate_command(CLI::App& app, const invocation& call) {
  auto* command =
      app.add_subcommand("validate",
                         "Measure this machine's suite for a level and judge every check PASS, WARN or FAIL against "
                         "its expected value (exit 0 pass, 1 warn, 2 fail)");
  auto arguments = std::make_shared<validate_arguments>();
  add_options(*command, *arguments);
  return [arguments, &call] {
    try {
      return execute(*arguments, call);
    } catch (const usage_error&) {
      throw;
    } catch (const std::exception& e) {
      std::cerr << "ironbench: error: " << e.what() << '\n';
      return exit_usage;  // an error is a failed validation: exit 2
    }
  };
}

}  // namespace ironbench::cli
