#include "cli/pairwise_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "cli/hung_run.hpp"
#include "cli/interrupt.hpp"
#include "cli/step_line.hpp"
#include "comm/collective_sweep.hpp"
#include "comm/collectives_results.hpp"
#include "comm/launch_environment.hpp"
#include "comm/pairwise_job.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"
#include "report/pairwise_report.hpp"
#include "session/run_setup.hpp"

namespace ironbench::cli {

comm::pairwise_settings pairwise_settings_of(const collectives_arguments& a) {
  comm::pairwise_settings s;
  s.mode = comm::parse_pair_mode(a.pairs.empty() ? "nodes" : a.pairs);
  if (a.min_bytes_given || a.max_bytes_given) {
    const auto min_bytes = static_cast<std::size_t>(parse_size(a.min_bytes_given ? a.min_bytes : "64K", "--minbytes"));
    const auto max_bytes = static_cast<std::size_t>(parse_size(a.max_bytes_given ? a.max_bytes : "16M", "--maxbytes"));
    const auto increment = static_cast<std::size_t>(parse_size(a.step_bytes, "--stepbytes"));
    if (min_bytes < 1 || max_bytes < min_bytes) throw usage_error("need 1 <= --minbytes <= --maxbytes");
    if (max_bytes > comm::largest_pair_bytes) {
      throw usage_error(fmt::format("--pairs --maxbytes {}: at most 1G (MPI's 32-bit counts)", max_bytes));
    }
    if (increment == 0 && !(a.step_factor > 1)) throw usage_error("--stepfactor must be above 1 (or give --stepbytes)");
    s.sizes = comm::sweep_sizes(min_bytes, max_bytes, a.step_factor, increment);
  }
  s.iterations = a.iterations;
  s.warmup_iterations = a.warmup_iterations;
  if (s.iterations < 1 || s.warmup_iterations < 0) throw usage_error("need --iters >= 1 and --warmup_iters >= 0");
  if (!(a.pair_outlier_factor > 0 && a.pair_outlier_factor <= 1)) {
    throw usage_error(
        fmt::format("--pair-outlier-factor takes a number above 0 and at most 1, not {:g}", a.pair_outlier_factor));
  }
  s.outlier_factor = a.pair_outlier_factor;
  const auto fault = comm::parse_pair_fault(a.inject_fault);
  s.fault = fault.fault;
  s.slowdown = fault.slowdown;
  if (a.backend != "auto" && a.backend != "mpi") {
    throw usage_error(
        fmt::format("--pairs measures with MPI on host memory: --backend auto or mpi, not '{}'", a.backend));
  }
  return s;
}

int run_pairs_command(const collectives_arguments& a, const invocation& call) {
  auto s = pairwise_settings_of(a);
  const double timeout_s = parse_duration_s(a.timeout, "--timeout");
  const auto targets = report::parse_targets(a.outputs);
  const auto world = comm::pairwise_world();
  const int rank = world->rank();
  if (rank == 0) report::prepare_results_dir(a.outputs);
  const auto launch = comm::detect_launch();
  auto host = session::detect_live_host();
  const auto& device = host.devices.devices.front();
  const auto descriptions = world->gather(
      core::json_text(comm::rank_description(rank, launch, session::host_json(host.fingerprint), device)));
  const auto start = std::chrono::system_clock::now();
  if (rank == 0) s.progress = step_line(std::cerr, a.quiet);
  const auto settings_json = [&](int ranks) {
    return json{{"ranks", ranks},
                {"backend", world->description() + " (host buffers, point to point)"},
                {"timeout_s", timeout_s}};
  };
  // A hang: every rank keeps its pairs until the sweep ends, so rank 0 writes the run with the
  // ranks the job waits for and no pair.
  const auto on_hang = [&](const comm::hang_verdict& verdict) {
    clear_step_line(std::cerr, a.quiet);
    auto run = session::rank0_run(call.argv, start, host, descriptions, device);
    run.settings = settings_json(world->size());
    write_hung_run(run, verdict, timeout_s, "no pairs (each rank holds its own until the sweep ends)",
                   {targets, a.outputs, host.fingerprint.hostname, start, nullptr});
  };
  const auto result = comm::run_pairwise_on_job(s, timeout_s, &install_interrupt_flag(), on_hang);
  if (rank != 0) return result.wrong_bytes == 0 ? exit_ok : exit_failure;

  clear_step_line(std::cerr, a.quiet);
  auto run = session::rank0_run(call.argv, start, host, descriptions, device);
  run.settings = settings_json(result.ranks);
  run.settings["pairwise"] = comm::to_json(result);
  run.cases = comm::pairwise_cases(result);
  if (result.interrupted) core::mark_interrupted(run, "the rounds measured so far");
  core::settle_run_status(run);
  const auto pairwise = run.settings["pairwise"];
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout,
                            [&](std::ostream& out) { report::write_pairwise_console(out, pairwise); });
  return exit_code_of(run);
}

}  // namespace ironbench::cli
