#include "train/train_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "comm/collectives_results.hpp"
#include "comm/injected_fault.hpp"
#include "comm/kept_on_hang.hpp"
#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"
#include "train/torch_compat.hpp"
#include "train/trainer.hpp"
#include "train/training_results.hpp"

#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#include "train/mpi_gradient_transport.hpp"
#endif
#if IRONBENCH_WITH_MPI && IRONBENCH_TRAIN_NCCL
#include "train/nccl_gradient_transport.hpp"
#endif

namespace ironbench::train {
namespace {

// The MPI job's ranks, for data-parallel runs.
#if IRONBENCH_WITH_MPI
int world_size() { return comm::mpi_world()->size(); }
int world_rank() { return comm::mpi_world()->rank(); }
/// Whether any rank of the job was interrupted (also a barrier).
bool any_rank(bool flag) { return comm::mpi_world()->max(flag ? 1 : 0) > 0; }
std::vector<std::string> describe_ranks(const std::string& mine) { return comm::mpi_world()->gather(mine); }
/// A hang names the ranks that never arrived (comm/progress_channel.hpp).
void watch_ranks(comm::watchdog& guard) { guard.watch_ranks(*comm::mpi_world(), comm::this_host_name()); }
std::unique_ptr<gradient_transport> transport_over(int ranks, torch::Device device) {
  if (device.is_cpu()) return mpi_gradient_transport(ranks);
#if IRONBENCH_TRAIN_NCCL
  return nccl_gradient_transport(ranks, device);
#else
  throw usage_error("data-parallel training on GPUs needs NCCL or RCCL, and this build has none");
#endif
}
#else
[[noreturn]] void no_mpi() {
  throw usage_error("data-parallel training needs MPI, and this build has none (install libopenmpi-dev and rebuild)");
}
int world_size() { no_mpi(); }
int world_rank() { no_mpi(); }
bool any_rank(bool) { no_mpi(); }
std::vector<std::string> describe_ranks(const std::string&) { no_mpi(); }
void watch_ranks(comm::watchdog&) { no_mpi(); }
std::unique_ptr<gradient_transport> transport_over(int, torch::Device) { no_mpi(); }
#endif

// What a train run will do, checked before anything is measured.
struct training_plan {
  std::vector<std::int64_t> batches, scaling;
  double timeout_s = 0;
  comm::launch_info launch;
  bool distributed = false;
  int world_size = 1, rank = 0;
  device_choice choice;
  torch::Device device = torch::kCPU;
  train_settings settings;
  comm::injected_fault fault;
};

training_plan plan_training(const train_request& r) {
  training_plan p;
  p.batches = parse_train_counts("batch", r.batch);
  if (!r.scaling.empty()) p.scaling = parse_train_counts("scaling", r.scaling);
  check_batches(p.batches);
  p.timeout_s = parse_duration_s(r.timeout, "--timeout");
  p.fault = comm::parse_fault(r.inject_fault);
  if (p.fault.kind == comm::fault_kind::slow || p.fault.kind == comm::fault_kind::slow_link) {
    throw usage_error(fmt::format("--inject-fault {}: train injects hang@RANK and exit@RANK", r.inject_fault));
  }
  p.launch = comm::detect_launch();
  p.distributed = p.launch.size > 1 || !p.scaling.empty();
  p.world_size = p.distributed ? world_size() : 1;
  p.rank = p.distributed ? world_rank() : 0;
  comm::check_fault_rank(p.fault, p.world_size);
  check_scaling(p.scaling, p.world_size);
  const int gpus = compat::gpu_count();
  p.choice = choose_train_device(r.device, gpus, comm::gpu_for(p.launch, gpus),
                                 fmt::format("libtorch {}{}", compat::torch_version(),
                                             IRONBENCH_TORCH_CUDA ? ", built with CUDA/ROCm" : ", a CPU-only build"));
  if (p.choice.gpu) p.device = torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(p.choice.index));
  p.settings = settings_for(r, p.choice.gpu);
  p.settings.batch = p.batches.front();
  if (auto why = p.settings.invalid_reason(); !why.empty()) throw usage_error(why);
  check_dtype(p.settings, p.choice);
  return p;
}

// The gradients' transport of a case on `ranks` ranks: none outside a job of several ranks,
// and none for one rank alone (it trains without data parallelism), though every rank of the
// job takes part in making it.
std::unique_ptr<gradient_transport> transport_for(const training_plan& plan, int ranks) {
  if (!plan.distributed || (ranks <= 1 && plan.world_size <= 1)) return nullptr;
  auto transport = transport_over(ranks, plan.device);
  if (ranks == 1) transport.reset();
  return transport;
}

// What `monitor` saw of case `c`: its summary and metrics on the case, its samples on the run.
void add_telemetry(core::case_result& c, core::case_monitor& monitor, train_sweep_outcome& outcome) {
  auto seen = monitor.finish();
  c.telemetry = seen.summary;
  for (auto& m : seen.metrics) c.metrics.push_back(std::move(m));
  if (!seen.series.is_null()) {
    outcome.telemetry_series.push_back(
        {{"case", outcome.cases.size()}, {"device", outcome.measured.id}, {"samples", seen.series}});
  }
}

}  // namespace

train_sweep_outcome run_training_sweep(const train_request& request, const train_callbacks& callbacks,
                                       const std::atomic<bool>* cancel) {
  const auto plan = plan_training(request);
  const auto& device = plan.device;
  const int rank = plan.rank, world = plan.world_size;
  train_sweep_outcome outcome;
  outcome.rank = rank;
  outcome.distributed = plan.distributed;

  const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = request.threads > 0 ? request.threads : std::max(1, cores / std::max(1, plan.launch.local_size));
  at::set_num_threads(threads);
  if (callbacks.on_ready) callbacks.on_ready(rank);
  outcome.watchdog = std::make_shared<comm::watchdog>(std::chrono::duration<double>(plan.timeout_s), rank);
  auto& guard = *outcome.watchdog;
  const auto settings_json = [&] {
    return training_settings_json(plan.settings, device.str(), threads, world, plan.batches, plan.scaling);
  };
  // Every rank keeps what it has measured, should the run hang or lose a rank (rank 0 writes
  // it, or the lowest rank alive when rank 0 died).
  train_sweep_outcome before;
  before.rank = rank;
  before.distributed = plan.distributed;
  before.start = std::chrono::system_clock::now();
  before.settings = settings_json();
  comm::kept_on_hang<train_sweep_outcome> kept(guard, callbacks.rank0_on_hang, std::move(before));
  const auto keep = [&] {
    outcome.settings = settings_json();
    kept.keep(outcome);
  };
  // Not in --scaling sweeps: there the ranks outside a case skip its steps, by design.
  if (plan.distributed && plan.scaling.empty()) watch_ranks(guard);
  guard.heartbeat("start-up: describing the host");
  outcome.host = session::detect_live_host();
  outcome.start = std::chrono::system_clock::now();
  outcome.measured = measured_device(outcome.host.devices.devices, plan.choice, IRONBENCH_TORCH_HIP);
  const auto& measured = outcome.measured;
  keep();
  comm::enact_start_fault(plan.fault, rank);
  // Every rank enters this operation: a rank that never does is the one the job waits for.
  guard.heartbeat("start-up: describing every rank");
  if (plan.distributed) {
    outcome.rank_descriptions = describe_ranks(core::json_text(
        comm::rank_description(rank, plan.launch, session::host_json(outcome.host.fingerprint), measured)));
    keep();
  }

  training_case_context context;
  context.settings = plan.settings;
  context.device = measured;
  context.scaling_sweep = !plan.scaling.empty();
  bool interrupted = false;
  std::vector<std::int64_t> rank_counts = plan.scaling;
  if (rank_counts.empty()) rank_counts = {world};
  for (const auto ranks : rank_counts) {
    if (interrupted) break;
    const auto transport = transport_for(plan, static_cast<int>(ranks));
    const bool participates = rank < ranks;
    for (const auto batch : plan.batches) {
      if (!participates || interrupted) continue;
      auto s = plan.settings;
      s.batch = batch;
      const std::string label =
          fmt::format("{} {} batch {} on {} {}", to_string(s.kind), s.kind == workload::mlp ? "" : s.shape.name, batch,
                      ranks, ranks == 1 ? "rank" : "ranks");
      guard.heartbeat(label);
      if (rank == 0 && callbacks.on_case) callbacks.on_case(label);
      auto monitor = rank == 0 && callbacks.monitors ? callbacks.monitors(measured) : nullptr;
      const auto result = run_training(
          s, device, transport.get(),
          [&](int step, const step_record& r) {
            guard.heartbeat(fmt::format("{}: step {}", label, step + 1));
            if (rank == 0 && callbacks.on_step) callbacks.on_step(s, step, r);
          },
          cancel);
      interrupted = interrupted || result.interrupted;
      if (rank != 0) continue;
      context.settings = s;
      auto c = training_case(context, result, static_cast<int>(ranks));
      if (monitor) add_telemetry(c, *monitor, outcome);
      outcome.cases.push_back(std::move(c));
      keep();
    }
    if (plan.distributed) interrupted = any_rank(interrupted || (cancel != nullptr && cancel->load()));
  }
  outcome.interrupted = interrupted;
  if (rank != 0) return outcome;
  add_scaling_efficiency(outcome.cases);
  guard.heartbeat("writing results");
  outcome.settings = settings_json();
  return outcome;
}

}  // namespace ironbench::train
