// ironbench collectives: nccl-tests' sweeps (all_reduce_perf, all_gather_perf ...) in one
// command, run by every rank of an MPI job; rank 0 prints the table and writes the results.
#include <fmt/format.h>

#include <iostream>

#include "cli/collectives_arguments.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/hung_run.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "cli/pairwise_command.hpp"
#include "cli/step_line.hpp"
#include "comm/collective_backends.hpp"
#include "comm/collectives_health.hpp"
#include "comm/collectives_results.hpp"
#include "comm/collectives_run.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "report/collectives_table.hpp"
#include "schema/collective_kinds.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {
namespace {

void add_options(CLI::App& command, collectives_arguments& a) {
  command.add_option("collectives", a.collectives, schema::collective_names_text() + ", or all")->capture_default_str();
  command.add_option("-b,--minbytes", a.min_bytes, "Smallest size (nccl-tests' -b; K/M/G = 2^10..)")
      ->capture_default_str();
  command.add_option("-e,--maxbytes", a.max_bytes, "Largest size (-e)")->capture_default_str();
  command.add_option("-f,--stepfactor", a.step_factor, "Multiply the size by this between steps (-f)")
      ->capture_default_str();
  command.add_option("-i,--stepbytes", a.step_bytes, "Add this many bytes between steps instead (-i)")
      ->capture_default_str();
  add_iteration_options(command, a.iterations, a.warmup_iterations, "Timed iterations per size (-n)",
                        "Untimed iterations per size (-w)");
  command
      .add_option("-d,--datatype", a.datatypes,
                  "int8, int32, fp16, bf16, fp32, fp64 (or nccl-tests' names), comma-separated, or all")
      ->capture_default_str();
  command.add_option("-o,--op", a.ops, "sum, prod, max, min, avg, comma-separated, or all")->capture_default_str();
  command.add_option("-r,--root", a.root, "Root rank of broadcast and reduce (-r)")->capture_default_str();
  command.add_option("-c,--check", a.check, "Check results and count wrong elements: 1 or 0 (-c)")
      ->capture_default_str();
  command
      .add_option("-G,--cudagraph", a.graph_launches,
                  "Record the -n iterations in a CUDA/HIP graph and time this many replays; 0: no graph (-G)")
      ->capture_default_str();
  command
      .add_option("-t,--nthreads", a.threads,
                  "GPU ranks per process, one thread each (nccl-tests' -t); GPU collectives only")
      ->capture_default_str();
  command
      .add_option("-g,--ngpus", a.gpus_per_thread,
                  "Multiplies the GPU ranks per process (nccl-tests' -g); each GPU still gets its own thread")
      ->capture_default_str();
  command.add_option("--trials", a.trials, "Repeat the whole sweep; report mean, stdev and CV per size")
      ->capture_default_str();
  command.add_option("--backend", a.backend, comm::backend_help(comm::collective_backends()))->capture_default_str();
  add_timeout_option(command, a.timeout);
  command.add_option("--inject-fault", a.inject_fault,
                     "Test the failure handling: hang@RANK (that rank stops), exit@RANK (that rank dies) or "
                     "slow@RANK[:MS] (that rank arrives MS ms late, default 20, at every measured step)");
  command
      .add_option("--pairs", a.pairs,
                  "Bandwidth between every pair of nodes (nodes, the default) or ranks (ranks), in rounds of "
                  "disjoint pairs; names the slow node or link (--inject-fault slow@RANK[:MS|:xK] and "
                  "slow-link@RANK-RANK[:MS|:xK] delay its exchanges, or make them K times as long)")
      ->expected(0, 1);
  command
      .add_option("--pair-outlier-factor", a.pair_outlier_factor,
                  "--pairs: a link below this times the reference (the links' upper quartile) is a suspect, "
                  "named when below it again measured again")
      ->capture_default_str();
  add_quiet_flag(command, a.quiet);
  add_output_options(command, a.outputs);
}

comm::sweep_settings base_settings(const collectives_arguments& a) {
  comm::sweep_settings s;
  s.min_bytes = static_cast<std::size_t>(parse_size(a.min_bytes, "--minbytes"));
  s.max_bytes = static_cast<std::size_t>(parse_size(a.max_bytes, "--maxbytes"));
  s.increment = static_cast<std::size_t>(parse_size(a.step_bytes, "--stepbytes"));
  s.factor = a.step_factor;
  s.warmup_iterations = a.warmup_iterations;
  s.iterations = a.iterations;
  s.root = a.root;
  s.check = a.check != 0;
  s.graph_launches = a.graph_launches;
  if (a.graph_launches < 0) throw usage_error("--cudagraph takes 0 (no graph) or a number of graph launches");
  if (s.min_bytes < 1 || s.max_bytes < s.min_bytes) throw usage_error("need 1 <= --minbytes <= --maxbytes");
  if (s.increment == 0 && !(s.factor > 1)) throw usage_error("--stepfactor must be above 1 (or give --stepbytes)");
  if (s.iterations < 1 || s.warmup_iterations < 0) throw usage_error("need --iters >= 1 and --warmup_iters >= 0");
  if (a.trials < 1) throw usage_error("--trials must be at least 1");
  if (a.check != 0 && a.check != 1) throw usage_error("--check takes 0 or 1");
  return s;
}

int execute(const collectives_arguments& a, const invocation& call) {
  comm::collectives_settings s;
  s.base = base_settings(a);
  s.timeout_s = parse_duration_s(a.timeout, "--timeout");
  s.fault = comm::parse_fault(a.inject_fault);
  if (s.fault.kind == comm::fault_kind::slow_link) {
    throw usage_error(
        fmt::format("--inject-fault {}: collectives inject hang@RANK, exit@RANK and slow@RANK[:MS]", a.inject_fault));
  }
  if (s.fault.kind == comm::fault_kind::slow) {
    s.base.slow_rank = s.fault.rank;
    s.base.slow_ms = s.fault.delay_ms;
  }
  const auto targets = report::parse_targets(a.outputs);
  comm::validate_backend(a.backend, comm::collective_backends());
  s.backend = a.backend;
  std::string collectives;
  for (const auto& name : a.collectives) collectives += (collectives.empty() ? "" : ",") + name;
  s.collectives = comm::parse_collectives(collectives);
  s.types = comm::parse_element_types(a.datatypes);
  s.ops = comm::parse_reduce_ops(a.ops);
  s.trials = a.trials;
  s.threads = a.threads;
  s.gpus_per_thread = a.gpus_per_thread;
  s.rank0_ready = [&] { report::prepare_results_dir(a.outputs); };
  s.rank0_progress = step_line(std::cerr, a.quiet);
  // A hang: rank 0 writes what it measured so far, with the ranks the job waits for.
  s.rank0_on_hang = [&](const comm::collectives_partial& p, const comm::hang_verdict& verdict) {
    clear_step_line(std::cerr, a.quiet);
    const auto trials = comm::kept_trials(p.trials);
    auto run = session::rank0_run(call.argv, p.start, p.host, p.rank_descriptions, p.measured);
    run.settings = comm::settings_json(s.base, p.size, p.backend, a.trials, s.timeout_s);
    run.settings["ranks_per_process"] = p.ranks_per_process;
    run.cases = comm::cases_of(trials, p.size, s.base.iterations, s.base.warmup_iterations);
    (void)comm::add_straggler_report(run, trials, p.rank_descriptions, p.size);
    write_hung_run(run, verdict, s.timeout_s, "the sizes measured before",
                   {targets, a.outputs, p.host.fingerprint.hostname, p.start, {}});
  };

  const auto outcome = comm::run_collectives(s, &install_interrupt_flag());
  const auto& trials = outcome.trials;
  if (outcome.rank != 0) return comm::summarize(trials.front()).wrong == 0 ? exit_ok : exit_failure;

  clear_step_line(std::cerr, a.quiet);
  auto run = session::rank0_run(call.argv, outcome.start, outcome.host, outcome.rank_descriptions, outcome.measured);
  run.settings = comm::settings_json(s.base, outcome.size, outcome.backend, a.trials, s.timeout_s);
  run.settings["ranks_per_process"] = outcome.ranks_per_process;
  run.cases = comm::cases_of(trials, outcome.size, s.base.iterations, s.base.warmup_iterations);
  if (outcome.interrupted) core::mark_interrupted(run, "the sizes measured so far");
  core::settle_run_status(run);
  const auto stragglers = comm::add_straggler_report(run, trials, outcome.rank_descriptions, outcome.size);
  const report::collectives_header header{
      outcome.size,  outcome.backend,          s.base.min_bytes,  s.base.max_bytes, s.base.increment,
      s.base.factor, s.base.warmup_iterations, s.base.iterations, s.base.check};
  report::write_run_outputs(run, targets, a.outputs, outcome.host.fingerprint.hostname, outcome.start, std::cout,
                            [&](std::ostream& out) {
                              report::write_collectives_console(out, header, run, trials);
                              for (const auto& line : stragglers) out << "# " << line << "\n";
                            });
  return exit_code_of(run);
}

}  // namespace

command_action add_collectives_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand(
      "collectives", "Collective bandwidth as nccl-tests measures it (run under mpirun/srun; rank 0 reports)");
  auto arguments = std::make_shared<collectives_arguments>();
  add_options(*command, *arguments);
  return [arguments, &call, command] {
    if (command->count("--pairs") == 0) return execute(*arguments, call);
    arguments->min_bytes_given = command->count("--minbytes") > 0;
    arguments->max_bytes_given = command->count("--maxbytes") > 0;
    return run_pairs_command(*arguments, call);
  };
}

}  // namespace ironbench::cli
