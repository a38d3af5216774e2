// ironbench serve: an LLM serving load generator with vLLM `bench serve`'s flags, metrics and
// result files, one event loop for every stream, and a verdict on its own timing.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/experiment_workloads.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "cli/serve_gpu_watch.hpp"
#include "cli/serve_options.hpp"
#include "cli/serve_ranks.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "report/run_outputs.hpp"
#include "serve/sweep/serve_sweep.hpp"
#include "serve/workload/dataset_table.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {
namespace {

int execute(const serve_arguments& a, const invocation& call) {
  auto settings = to_settings(a);
  settings.ranks = serve_client_ranks();
  if (settings.ranks.rank != 0) {
    // A rank other than 0 sends its share and reports nothing; it exits as rank 0 does.
    const auto& cancel = install_interrupt_flag();
    settings.progress_interval_s = 0;
    serve::prepare_result_dir(settings.save);
    const auto outcome = serve::run_sweep(settings, &cancel, {});
    if (settings.ranks.rank0_says(outcome.unjudged)) return exit_unjudged;
    return settings.ranks.rank0_says(outcome.invalid) ? exit_failure : exit_ok;
  }
  const auto targets = report::parse_targets(a.outputs);
  std::ostream& console = report::console_stream(targets);
  report::prepare_results_dir(a.outputs);
  serve::prepare_result_dir(settings.save);

  const auto& cancel = install_interrupt_flag();
  const auto host = session::detect_live_host();
  std::string watched;
  settings.watch_gpus = serve_gpu_watch(a.gpu_telemetry, settings.load.base_urls, host.devices.devices, watched);
  const auto start = std::chrono::system_clock::now();
  auto run = session::start_run(call.argv, host, start);
  run.devices = {host.devices.devices.front()};
  if (settings.watch_gpus) run.devices = host.devices.devices;  // the GPUs watched are described too
  auto outcome = serve::run_sweep(
      settings, &cancel,
      {[&](const std::string& text) { console << text; }, [](const std::string& text) { std::cerr << text; }});
  run.cases = std::move(outcome.cases);
  run.settings.update(outcome.settings);
  run.settings["gpu_telemetry"] = watched;
  run.telemetry = std::move(outcome.telemetry);
  const bool invalid = settings.ranks.rank0_says(outcome.invalid);
  const bool unjudged = settings.ranks.rank0_says(outcome.unjudged);
  session::finish_run(run, host);
  if (cancel.load()) core::mark_interrupted(run, "the requests measured so far");
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout, [](std::ostream&) {});
  if (run.status == core::run_status::interrupted) return exit_interrupted;
  if (unjudged) return exit_unjudged;
  return invalid ? exit_failure : exit_ok;
}

}  // namespace

experiment::in_process_workload serve_workload() {
  const auto parsed = [](const std::vector<std::string>& arguments) {
    return parse_step<serve_arguments>(arguments, "serve", add_options);
  };
  experiment::in_process_workload w;
  w.kind = "serve";
  w.check = [parsed](const std::vector<std::string>& arguments) { (void)to_settings(*parsed(arguments)); };
  w.measure = [parsed](const std::vector<std::string>& arguments, const std::atomic<bool>& cancel, std::ostream& log) {
    const auto typed = parsed(arguments);
    auto settings = to_settings(*typed);
    settings.live_progress = false;  // its lines go to the step's log
    std::string watched;
    settings.watch_gpus = serve_gpu_watch(typed->gpu_telemetry, settings.load.base_urls,
                                          session::detect_live_host().devices.devices, watched);
    serve::prepare_result_dir(settings.save);
    auto outcome = serve::run_sweep(
        settings, &cancel,
        {[&](const std::string& text) { log << text << std::flush; }, [&](const std::string& text) { log << text; }});
    core::run_result run;
    run.cases = std::move(outcome.cases);
    run.settings = std::move(outcome.settings);
    run.settings["gpu_telemetry"] = watched;
    run.telemetry = std::move(outcome.telemetry);
    return run;
  };
  return w;
}

command_action add_serve_command(CLI::App& app, const invocation& call) {
  auto* c = app.add_subcommand("serve", "LLM serving load generator (vLLM bench serve's flags and metrics)");
  auto a = std::make_shared<serve_arguments>();
  add_options(*c, *a);
  return [a, &call] { return execute(*a, call); };
}

}  // namespace ironbench::cli
