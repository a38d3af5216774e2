#include "benchmarks/tp/tp_infer_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <thread>

#include "benchmarks/tp/tp_device.hpp"
#include "blas/openblas.hpp"
#include "comm/collectives_results.hpp"
#include "comm/gpu_ranks.hpp"
#include "comm/job_world.hpp"
#include "comm/kept_on_hang.hpp"
#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "report/text_table.hpp"

namespace ironbench::benchmarks {
namespace {

// Ranks on one node share its cores, unless the environment sets the threads.
void share_cores(const comm::launch_info& launch) {
  if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr || std::getenv("OMP_NUM_THREADS") != nullptr) return;
  const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  blas::openblas_set_threads(std::max(1, cores / std::max(1, launch.local_size)));
}

// The run's settings; without `device` (a run that hangs before it is made) only the job's.
json settings_json(const tp_infer_settings& settings, int ranks, const tp_device* device) {
  json j = {{"ranks", ranks}, {"iterations", settings.iterations}, {"warmup_iterations", settings.warmup_iterations}};
  if (device != nullptr) {
    j["backend"] = device->collectives();
    j["compute"] = device->compute();
    j["openblas_threads_per_rank"] = blas::openblas_threads();
    j["single_device"] = device->single_device();
  }
  return j;
}

}  // namespace

std::vector<comm::collective_backend_kind> tp_infer_backends() {
  return comm::collective_backends_named({"auto", "mpi", "nccl", "rccl"});
}

tp_infer_outcome run_tp_infer(const tp_infer_settings& settings, const tp_infer_callbacks& callbacks,
                              const std::atomic<bool>* cancel) {
  comm::validate_backend(settings.backend, tp_infer_backends());
  // MPI only where the ranks live in several processes or the gather goes through it.
  auto job = comm::start_job(comm::collective_backend_named(settings.backend));
  auto& launch = job.launch;
  const auto& world = job.world;
  tp_infer_outcome outcome;
  outcome.rank = world->rank();
  outcome.ranks = world->size();
  const int rank = outcome.rank, ranks = outcome.ranks;
  check_tp_sizes(settings, ranks);
  if (callbacks.on_ready) callbacks.on_ready(rank);
  comm::check_fault_rank(settings.fault, ranks);
  outcome.watchdog = std::make_shared<comm::watchdog>(std::chrono::duration<double>(settings.timeout_s), rank);
  // Every rank keeps what it has measured, should the run hang or lose a rank (rank 0 writes
  // it, or the lowest rank alive when rank 0 died).
  tp_infer_outcome before;
  before.rank = rank;
  before.ranks = ranks;
  before.host = job.host;
  before.measured = job.host.devices.devices.front();
  before.start = std::chrono::system_clock::now();
  before.settings = settings_json(settings, ranks, nullptr);
  comm::kept_on_hang<tp_infer_outcome> kept(*outcome.watchdog, callbacks.rank0_on_hang, std::move(before));
  const auto keep = [&] { kept.keep(outcome); };
  outcome.watchdog->watch_ranks(*world, comm::this_host_name());  // a hang names the ranks that never arrived
  comm::enact_start_fault(settings.fault, rank);
  const auto progress = [&](const std::string& step) {
    outcome.watchdog->heartbeat(step);
    if (callbacks.on_progress) callbacks.on_progress(step);
  };
  progress("start-up: describing every rank");
  comm::assign_local_ranks_by_host(launch, *world, comm::this_host_name());
  share_cores(launch);
  outcome.host = std::move(job.host);
  // GPUs (NCCL/RCCL for the gather) when every rank has one, as collectives decides.
  const bool use_gpus =
      comm::every_rank_takes_gpus(*world, settings.backend, comm::collective_backend_named(settings.backend).takes_gpus,
                                  outcome.host.devices.devices, outcome.host.devices.notes);
  std::optional<core::device_info> gpu;
  if (use_gpus) {
    const auto gpus = comm::gpus_of(outcome.host.devices.devices);
    gpu = gpus.at(static_cast<std::size_t>(comm::gpu_for(launch, static_cast<int>(gpus.size()))));
  }
  outcome.measured = gpu ? *gpu : outcome.host.devices.devices.front();
  const tp_passes passes{settings.iterations, settings.warmup_iterations};
  const auto device = make_tp_device(world, gpu, passes);
  outcome.start = std::chrono::system_clock::now();
  outcome.rank_descriptions = world->gather(core::json_text(
      comm::rank_description(rank, launch, session::host_json(outcome.host.fingerprint), outcome.measured)));
  outcome.collectives = device->collectives();
  outcome.compute = device->compute();
  outcome.settings = settings_json(settings, ranks, device.get());
  keep();

  for (const auto batch : settings.batches) {
    for (const auto hidden : settings.hidden_sizes) {
      if (outcome.interrupted) break;
      const tp_shape shape{batch, hidden, ranks};
      const std::vector<std::int64_t> rows = {0, shape.batch - 1};
      progress(fmt::format("tp_infer batch {} hidden {} on {} ranks", shape.batch, shape.hidden, ranks));
      tp_check tp_checked, single_checked;
      const auto tp = device->measure_sharded(shape, rows, tp_checked);

      // The same model on one device: rank 0 alone, the others wait.
      progress(fmt::format("tp_infer batch {} hidden {} on one device", shape.batch, shape.hidden));
      const tp_shape one{shape.batch, shape.hidden, 1};
      tp_timing single;
      if (rank == 0) single = device->measure_alone(one, rows, single_checked);
      world->barrier();
      if (cancel != nullptr) outcome.interrupted = world->max(cancel->load() ? 1.0 : 0.0) > 0;
      if (rank != 0) continue;
      auto tp_result =
          tp_infer_case(shape, "tensor_parallel", tp, tp_checked, settings.iterations, outcome.measured.id);
      add_tp_speedup(tp_result, single.latency_s, tp.latency_s, ranks);
      outcome.cases.push_back(std::move(tp_result));
      outcome.cases.push_back(
          tp_infer_case(one, "single_device", single, single_checked, settings.iterations, outcome.measured.id));
      outcome.rows.push_back({shape.batch, shape.hidden, ranks, tp.latency_s, tp.gather_s, single.latency_s,
                              tp_checked.wrong + single_checked.wrong == 0});
      keep();
    }
  }
  progress("writing results");
  return outcome;
}

void write_tp_infer_console(const tp_infer_outcome& outcome, const tp_infer_settings& settings, std::ostream& out) {
  report::text_table table;
  for (const char* h : {"batch", "hidden", "ranks", "TP latency ms", "TP samples/s", "gather %", "1-device latency ms",
                        "1-device samples/s", "speedup", "efficiency", "check"}) {
    table.add_column(h);
  }
  for (const auto& r : outcome.rows) {
    const double speedup = r.single_latency_s / r.tp_latency_s;
    table.add_row({std::to_string(r.batch), std::to_string(r.hidden), std::to_string(r.ranks),
                   fmt::format("{:.3f}", r.tp_latency_s * 1e3), fmt::format("{:.0f}", r.batch / r.tp_latency_s),
                   fmt::format("{:.1f}", 100 * r.tp_gather_s / r.tp_latency_s),
                   fmt::format("{:.3f}", r.single_latency_s * 1e3), fmt::format("{:.0f}", r.batch / r.single_latency_s),
                   fmt::format("{:.2f}", speedup), fmt::format("{:.2f}", speedup / r.ranks), r.ok ? "ok" : "WRONG"});
  }
  out << fmt::format("tp_infer: {} ranks ({}; {}), {} iterations after {} warm-up\n", outcome.ranks,
                     outcome.collectives, outcome.compute, settings.iterations, settings.warmup_iterations);
  table.render_text(out);
}

}  // namespace ironbench::benchmarks
