// ironbench tp-infer (alias tp_infer): dstack's toy tensor-parallel inference (a column-sharded
// linear layer, an all_gather, a replicated linear layer) on every rank of an MPI job, against the
// same model on a single device (benchmarks/tp/tp_infer_run.hpp). Rank 0 reports.
#include <fmt/format.h>

#include <functional>
#include <iostream>

#include "benchmarks/tp/tp_infer_run.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/hung_run.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "cli/step_line.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {
namespace {

struct tp_arguments {
  std::string batch = "128,512,2048", hidden = "1024", timeout = "600s", backend = "auto", inject_fault;
  int iterations = 10, warmup_iterations = 2;
  bool quiet = false;
  report::output_options outputs;
};

// The run rank 0 writes from `outcome` (finished, or what a hung run measured so far).
core::run_result run_of(const benchmarks::tp_infer_outcome& outcome, const invocation& call) {
  auto run = session::rank0_run(call.argv, outcome.start, outcome.host, outcome.rank_descriptions, outcome.measured);
  run.cases = outcome.cases;
  run.settings = outcome.settings;
  return run;
}

// The console report: the table of the cases measured (none where the run hung before its
// device was made), and how the run ended.
std::function<void(std::ostream&)> console_of(const benchmarks::tp_infer_outcome& outcome,
                                              const benchmarks::tp_infer_settings& settings,
                                              const core::run_result& run) {
  return [&outcome, &settings, &run](std::ostream& out) {
    if (!outcome.collectives.empty()) benchmarks::write_tp_infer_console(outcome, settings, out);
    out << fmt::format("run {}{}\n", core::to_string(run.status),
                       run.status_reason.empty() ? "" : ": " + run.status_reason);
  };
}

int execute(const tp_arguments& a, const invocation& call) {
  benchmarks::tp_infer_settings settings;
  benchmarks::parse_tp_infer_sizes(a.batch, a.hidden, settings);
  settings.iterations = a.iterations;
  settings.warmup_iterations = a.warmup_iterations;
  settings.backend = a.backend;
  benchmarks::check_tp_iterations(settings);
  settings.timeout_s = parse_duration_s(a.timeout, "--timeout");
  settings.fault = comm::parse_fault(a.inject_fault);
  if (settings.fault.kind == comm::fault_kind::slow || settings.fault.kind == comm::fault_kind::slow_link) {
    throw usage_error(fmt::format("--inject-fault {}: tp-infer injects hang@RANK and exit@RANK", a.inject_fault));
  }
  const auto targets = report::parse_targets(a.outputs);

  benchmarks::tp_infer_callbacks callbacks;
  const auto show_step = step_line(std::cerr, a.quiet);
  bool reports = false;
  callbacks.on_ready = [&](int rank) {
    reports = rank == 0;
    if (reports) report::prepare_results_dir(a.outputs);
  };
  callbacks.on_progress = [&](const std::string& step) {
    if (reports && show_step) show_step(step);
  };
  // A hang: rank 0 writes the cases it measured so far, with the ranks the job waits for.
  callbacks.rank0_on_hang = [&](const benchmarks::tp_infer_outcome& so_far, const comm::hang_verdict& verdict) {
    clear_step_line(std::cerr, a.quiet);
    auto run = run_of(so_far, call);
    write_hung_run(
        run, verdict, settings.timeout_s, "the cases measured before",
        {targets, a.outputs, so_far.host.fingerprint.hostname, so_far.start, console_of(so_far, settings, run)});
  };
  const auto outcome = benchmarks::run_tp_infer(settings, callbacks, &install_interrupt_flag());
  if (outcome.rank != 0) return exit_ok;
  clear_step_line(std::cerr, a.quiet);
  auto run = run_of(outcome, call);
  if (outcome.interrupted) core::mark_interrupted(run, "the cases measured so far");
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, outcome.host.fingerprint.hostname, outcome.start, std::cout,
                            console_of(outcome, settings, run));
  return exit_code_of(run);
}

}  // namespace

command_action add_tp_infer_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand("tp-infer",
                                     "Toy tensor-parallel inference (column-sharded linear, all_gather, linear) vs one "
                                     "device; run under mpirun");
  command->alias("tp_infer");
  auto a = std::make_shared<tp_arguments>();
  command->add_option("--batch", a->batch, "Batch sizes: list or range, e.g. 128:32768:x4")->capture_default_str();
  command->add_option("--hidden", a->hidden, "Hidden sizes H (F = 4 H must split over the ranks)")
      ->capture_default_str();
  add_iteration_options(*command, a->iterations, a->warmup_iterations, "Timed forward passes per case",
                        "Untimed forward passes first");
  command->add_option("--backend", a->backend, comm::backend_help(benchmarks::tp_infer_backends()))
      ->capture_default_str();
  add_timeout_option(*command, a->timeout);
  add_rank_fault_option(*command, a->inject_fault);
  add_quiet_flag(*command, a->quiet);
  add_output_options(*command, a->outputs);
  return [a, &call] { return execute(*a, call); };
}

}  // namespace ironbench::cli
