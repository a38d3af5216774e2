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
#include "comm/node_ranks.hpp"
#include "comm/watchdog.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"
#include "report/pairwise_report.hpp"
#include "session/run_setup.hpp"
#if IRONBENCH_WITH_MPI
// MPI's C API only (no deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <thread>

#include "comm/mpi/mpi_communicator.hpp"
#include "comm/mpi/mpi_peer_exchange.hpp"
#endif

namespace ironbench::cli {
namespace {

// MPI's 32-bit counts, and memory: three buffers of the largest size per measuring rank.
constexpr std::size_t largest_pair_bytes = std::size_t{1} << 30;

// MPI's world for the sweep, or usage_error before MPI starts where it cannot run.
std::shared_ptr<comm::bootstrap> pairs_world() {
  const auto launch = comm::detect_launch();
  if (launch.size < 2) {
    throw usage_error("--pairs needs at least 2 ranks: run it under mpirun or srun (one rank per node, or more)");
  }
#if IRONBENCH_WITH_MPI
  return comm::mpi_world();
#else
  throw usage_error(
      fmt::format("--pairs: this process is rank {} of {} ({}), and this build has no MPI (install "
                  "libopenmpi-dev and rebuild)",
                  launch.rank, launch.size, launch.launcher));
#endif
}

#if IRONBENCH_WITH_MPI
// The sweep's world, whose barriers and votes wait without spinning. Most ranks spend most of a
// sweep in them (the ranks that do not measure, and all but two while suspects are measured
// again), and where a node has fewer cores than ranks, a rank spinning in MPI_Barrier takes the
// core a measuring rank needs: it sleeps between tests of a non-blocking barrier instead.
class unhurried_world final : public comm::bootstrap {
 public:
  explicit unhurried_world(std::shared_ptr<comm::bootstrap> inner) : inner_(std::move(inner)) {}
  [[nodiscard]] int rank() const override { return inner_->rank(); }
  [[nodiscard]] int size() const override { return inner_->size(); }
  [[nodiscard]] std::string description() const override { return inner_->description(); }
  void barrier() override {
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    wait(request);
  }
  [[nodiscard]] double sum(double value) override { return inner_->sum(value); }
  [[nodiscard]] double max(double value) override {
    double result = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Iallreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &request), "MPI_Iallreduce");
    wait(request);
    return result;
  }
  [[nodiscard]] double min(double value) override { return inner_->min(value); }
  [[nodiscard]] std::vector<std::string> gather(const std::string& text) override { return inner_->gather(text); }
  void broadcast_bytes(void* data, std::size_t bytes) override { inner_->broadcast_bytes(data, bytes); }
  void all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) override {
    inner_->all_gather_bytes(send, receive, bytes_per_rank);
  }

 private:
  static void check(int code, const char* call) {
    if (code != MPI_SUCCESS) throw error(fmt::format("{} failed (MPI error {})", call, code));
  }
  // Tests `request` every 20 us at first, every millisecond after a while.
  static void wait(MPI_Request& request) {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done != 0) return;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }

  std::shared_ptr<comm::bootstrap> inner_;
};
#endif

}  // namespace

comm::pairwise_settings pairwise_settings_of(const pairs_request& r) {
  comm::pairwise_settings s;
  s.mode = comm::parse_pair_mode(r.mode.empty() ? "nodes" : r.mode);
  if (r.sizes_given) {
    const auto min_bytes = static_cast<std::size_t>(parse_size(r.min_bytes.value_or("64K"), "--minbytes"));
    const auto max_bytes = static_cast<std::size_t>(parse_size(r.max_bytes.value_or("16M"), "--maxbytes"));
    const auto increment = static_cast<std::size_t>(parse_size(r.step_bytes, "--stepbytes"));
    if (min_bytes < 1 || max_bytes < min_bytes) throw usage_error("need 1 <= --minbytes <= --maxbytes");
    if (max_bytes > largest_pair_bytes) {
      throw usage_error(fmt::format("--pairs --maxbytes {}: at most 1G (MPI's 32-bit counts)", max_bytes));
    }
    if (increment == 0 && !(r.step_factor > 1)) throw usage_error("--stepfactor must be above 1 (or give --stepbytes)");
    s.sizes = comm::sweep_sizes(min_bytes, max_bytes, r.step_factor, increment);
  }
  s.iterations = r.iterations;
  s.warmup_iterations = r.warmup_iterations;
  if (s.iterations < 1 || s.warmup_iterations < 0) throw usage_error("need --iters >= 1 and --warmup_iters >= 0");
  if (!(r.outlier_factor > 0 && r.outlier_factor <= 1)) {
    throw usage_error(
        fmt::format("--pair-outlier-factor takes a number above 0 and at most 1, not {:g}", r.outlier_factor));
  }
  s.outlier_factor = r.outlier_factor;
  const auto fault = comm::parse_pair_fault(r.inject_fault);
  s.fault = fault.fault;
  s.slowdown = fault.slowdown;
  if (r.backend != "auto" && r.backend != "mpi") {
    throw usage_error(
        fmt::format("--pairs measures with MPI on host memory: --backend auto or mpi, not '{}'", r.backend));
  }
  return s;
}

comm::pairwise_result run_pairwise_on_job(const comm::pairwise_settings& settings, double timeout_s,
                                          const std::atomic<bool>* cancel,
                                          const std::function<void(const comm::hang_verdict&)>& rank0_on_hang) {
  const auto world = pairs_world();
#if IRONBENCH_WITH_MPI
  comm::watchdog guard(std::chrono::duration<double>(timeout_s), world->rank());
  // Rank 0 writes the run on a hang or a death; the lowest rank alive when rank 0 died.
  if (rank0_on_hang) guard.on_hang(rank0_on_hang);
  // Every rank enters each round: a hang names the ranks that never did.
  guard.watch_ranks(*world, comm::this_host_name());
  auto s = settings;
  s.progress = [&guard, outer = settings.progress](const std::string& step) {
    guard.heartbeat(step);
    if (outer) outer(step);
  };
  const auto peers = comm::mpi_peer_exchange();
  unhurried_world unhurried(world);
  return comm::run_pairwise(unhurried, *peers, comm::this_host_name(), s, cancel);
#else
  (void)settings, (void)timeout_s, (void)cancel, (void)world, (void)rank0_on_hang;
  throw usage_error("--pairs needs MPI, and this build has none");
#endif
}

int run_pairs_command(const pairs_request& r, const invocation& call) {
  auto s = pairwise_settings_of(r);
  const double timeout_s = parse_duration_s(r.timeout, "--timeout");
  const auto targets = report::parse_targets(r.outputs);
  const auto world = pairs_world();
  const int rank = world->rank();
  if (rank == 0) report::prepare_results_dir(r.outputs);
  const auto launch = comm::detect_launch();
  auto host = session::detect_live_host();
  const auto& device = host.devices.devices.front();
  const auto descriptions = world->gather(
      core::json_text(comm::rank_description(rank, launch, session::host_json(host.fingerprint), device)));
  const auto start = std::chrono::system_clock::now();
  if (rank == 0) s.progress = step_line(std::cerr, r.quiet);
  const auto settings_json = [&](int ranks) {
    return json{{"ranks", ranks},
                {"backend", world->description() + " (host buffers, point to point)"},
                {"timeout_s", timeout_s}};
  };
  // A hang: every rank keeps its pairs until the sweep ends, so rank 0 writes the run with the
  // ranks the job waits for and no pair.
  const auto on_hang = [&](const comm::hang_verdict& verdict) {
    clear_step_line(std::cerr, r.quiet);
    auto run = session::rank0_run(call.argv, start, host, descriptions, device);
    run.settings = settings_json(world->size());
    write_hung_run(run, verdict, timeout_s, "no pairs (each rank holds its own until the sweep ends)",
                   {targets, r.outputs, host.fingerprint.hostname, start, nullptr});
  };
  const auto result = run_pairwise_on_job(s, timeout_s, &install_interrupt_flag(), on_hang);
  if (rank != 0) return result.wrong_bytes == 0 ? exit_ok : exit_failure;

  clear_step_line(std::cerr, r.quiet);
  auto run = session::rank0_run(call.argv, start, host, descriptions, device);
  run.settings = settings_json(result.ranks);
  run.settings["pairwise"] = comm::to_json(result);
  run.cases = comm::pairwise_cases(result);
  if (result.interrupted) core::mark_interrupted(run, "the rounds measured so far");
  core::settle_run_status(run);
  const auto pairwise = run.settings["pairwise"];
  report::write_run_outputs(run, targets, r.outputs, host.fingerprint.hostname, start, std::cout,
                            [&](std::ostream& out) { report::write_pairwise_console(out, pairwise); });
  return exit_code_of(run);
}

}  // namespace ironbench::cli
