#include "comm/collectives_run.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <thread>

#include "comm/collective_backends.hpp"
#include "comm/collectives_results.hpp"
#include "comm/gpu_ranks.hpp"
#include "comm/job_world.hpp"
#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#include "comm/thread_ranks.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"
#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif

namespace ironbench::comm {
namespace {

template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& text, const std::vector<T>& all, Parse parse, const char* what) {
  if (text == "all") return all;
  std::vector<T> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const auto name = text.substr(start, end - start);
    const auto value = parse(name);
    if (!value) throw usage_error(fmt::format("unknown {} '{}'", what, name));
    values.push_back(*value);
    start = end + 1;
  }
  return values;
}

// Everything one rank does: its backend, its description, the sweeps of every trial.
struct rank_outcome {
  std::vector<std::vector<sweep_row>> trials;
  std::vector<std::string> rank_descriptions;
  std::string backend;
  int size = 1;
  bool interrupted = false;
};

// The device of each rank of this process: one GPU per rank by local rank, or with several
// ranks per process GPUs local rank x ranks per process + thread (nccl-tests' order).
std::vector<core::device_info> devices_of_ranks(bootstrap& world, const launch_info& launch,
                                                const session::live_host& host, bool use_gpu, int per_process) {
  const auto gpus = gpus_of(host.devices.devices);
  std::vector<core::device_info> devices;
  if (!use_gpu) {
    devices.push_back(host.devices.devices.front());
  } else if (per_process == 1) {
    devices.push_back(gpus.at(static_cast<std::size_t>(gpu_for(launch, static_cast<int>(gpus.size())))));
  } else {
    // Decided together: a process short of GPUs must not leave the others waiting in NCCL.
    const int first = launch.local_rank * per_process;
    const bool fits = first + per_process <= static_cast<int>(gpus.size());
    if (world.min(fits ? 1.0 : 0.0) == 0.0) {
      throw usage_error(
          fmt::format("{} ranks per process take GPUs local rank x {} onwards; rank {} (local rank {}) "
                      "sees {} GPUs{}",
                      per_process, per_process, world.rank(), launch.local_rank, gpus.size(),
                      fits ? ", enough, but another process has too few" : ", too few"));
    }
    for (int t = 0; t < per_process; ++t) devices.push_back(gpus.at(static_cast<std::size_t>(first + t)));
  }
  return devices;
}

// Device pointers handed to an MPI that does not take them crash it: ask first. Some
// GPU-aware builds answer no (Open MPI's query is known to), so the user may overrule.
// Every rank decides together, so that none goes on alone.
void require_gpu_aware_mpi(bootstrap& world, const std::vector<core::device_info>& gpus) {
#if !IRONBENCH_WITH_MPI
  (void)world, (void)gpus;
  throw usage_error("--backend mpi-gpu needs MPI, and this build has none");
#else
  std::string why;
  const auto aware = mpi_gpu_aware(core::to_string(gpus.front().kind), why);
  const char* asserted = std::getenv("IRONBENCH_MPI_GPU_AWARE");
  const bool overruled = asserted != nullptr && std::string(asserted) == "1";
  const bool ok = aware.value_or(false) || overruled;
  if (world.min(ok ? 1.0 : 0.0) == 0.0) {
    throw usage_error(
        fmt::format("--backend mpi-gpu: {} on rank {}{}; set IRONBENCH_MPI_GPU_AWARE=1 if it is "
                    "GPU-aware",
                    aware.has_value() ? "this MPI says it is not GPU-aware (" + why + ")" : why, world.rank(),
                    ok ? " (another rank's MPI said no)" : ""));
  }
#endif
}

// A side channel to rank 0, so that a hang names the ranks that never arrived: the job's part
// measured so far, which `guard` hands to rank0_on_hang when the run hangs. Every rank keeps
// what it has: the lowest rank alive writes it when rank 0 dies.
std::shared_ptr<shared_collectives_partial> keep_partial_for_hangs(const collectives_settings& a, const job_start& job,
                                                                   int per_process, watchdog& guard) {
  auto partial = std::make_shared<shared_collectives_partial>();
  if (!a.rank0_on_hang) return partial;
  partial->data.size = job.world->size() * per_process;
  partial->data.ranks_per_process = per_process;
  partial->data.host = job.host;
  partial->data.measured = job.host.devices.devices.front();
  partial->data.start = std::chrono::system_clock::now();
  guard.on_hang([partial, handler = a.rank0_on_hang](const hang_verdict& verdict) {
    const std::lock_guard lock(partial->mutex);
    handler(partial->data, verdict);
  });
  return partial;
}

// The backend the ranks use (`use_gpu`: every rank takes a GPU), refused where the job asks
// what it cannot do.
const collective_backend_kind& checked_backend(const collectives_settings& a, bootstrap& world, bool use_gpu,
                                               const session::live_host& live) {
  const int per_process = a.threads * a.gpus_per_thread;
  const auto& kind = resolve_backend(a.backend, use_gpu);
  if (per_process > 1 && !kind.gpu_collectives) {
    throw usage_error(
        fmt::format("--nthreads/--ngpus {}: several ranks per process need GPU collectives (NCCL/RCCL)", per_process));
  }
  if (a.base.graph_launches > 0 && !kind.gpu_collectives) {
    throw usage_error(fmt::format("--cudagraph {}: MPI backends have no GPU graphs", a.base.graph_launches));
  }
  if (kind.name == "mpi-gpu") require_gpu_aware_mpi(world, gpus_of(live.devices.devices));
  return kind;
}

using rank_body = std::function<rank_outcome(const std::shared_ptr<bootstrap>& view, const core::device_info& device)>;

// Runs every rank of this process, one a device of `devices`: on this thread alone, or with
// several, one thread a rank, thread 0 being this (MPI's) thread, the only one that calls MPI.
// A rank that fails ends the process (status 1), since the others would wait for it at their
// next exchange. Returns the outcome of the process's first rank.
rank_outcome run_process_ranks(const std::shared_ptr<bootstrap>& world, const std::vector<core::device_info>& devices,
                               const rank_body& run_rank) {
  const int per_process = static_cast<int>(devices.size());
  if (per_process == 1) return run_rank(world, devices.front());
  auto group = std::make_shared<thread_group>(*world, per_process);
  std::vector<rank_outcome> outcomes(devices.size());
  const auto run_thread = [&](int t) {
    try {
      outcomes[static_cast<std::size_t>(t)] =
          run_rank(std::make_shared<thread_rank>(group, t), devices[static_cast<std::size_t>(t)]);
    } catch (const std::exception& e) {
      std::cerr << fmt::format("ironbench: error: rank {}: {}\n", world->rank() * per_process + t, e.what());
      std::_Exit(1);
    }
  };
  std::vector<std::thread> others;
  for (int t = 1; t < per_process; ++t) others.emplace_back(run_thread, t);
  run_thread(0);
  for (auto& thread : others) thread.join();
  return std::move(outcomes.front());
}

}  // namespace

std::vector<collective> parse_collectives(const std::string& text) {
  return parse_list(text, all_collectives(), collective_from_string, "collective");
}

std::vector<element_type> parse_element_types(const std::string& text) {
  return parse_list(text, all_element_types(), element_type_from_string, "datatype");
}

std::vector<reduce_op> parse_reduce_ops(const std::string& text) {
  return parse_list(text, all_reduce_ops(), reduce_op_from_string, "reduction op");
}

std::vector<sweep_settings> plan(const std::vector<collective>& collectives, const std::vector<element_type>& types,
                                 const std::vector<reduce_op>& ops, const sweep_settings& base) {
  std::vector<collective> reducing, moving;
  for (auto c : collectives) (reduces(c) ? reducing : moving).push_back(c);
  std::vector<sweep_settings> sweeps;
  for (auto type : types) {
    for (auto op : ops) {
      if (reducing.empty()) break;
      auto s = base;
      s.collectives = reducing;
      s.type = type;
      s.op = op;
      sweeps.push_back(s);
    }
    if (!moving.empty()) {
      auto s = base;
      s.collectives = moving;
      s.type = type;
      sweeps.push_back(s);
    }
  }
  return sweeps;
}

collectives_outcome run_collectives(const collectives_settings& a, const std::atomic<bool>* cancel) {
  const auto sweeps = plan(a.collectives, a.types, a.ops, a.base);
  const auto& base = a.base;
  // MPI only where ranks live in several processes or exchange host buffers through it.
  const auto& asked = collective_backend_named(a.backend);
  auto job = start_job(asked);
  auto& launch = job.launch;
  const auto& world = job.world;
  const int rank = world->rank();
  const int per_process = a.threads * a.gpus_per_thread;
  if (a.threads < 1 || a.gpus_per_thread < 1) throw usage_error("--nthreads and --ngpus must be at least 1");
  if (base.root < 0 || base.root >= world->size() * per_process) {
    throw usage_error(fmt::format("--root {} is not a rank (the job has {})", base.root, world->size() * per_process));
  }
  if (rank == 0 && a.rank0_ready) a.rank0_ready();
  collectives_outcome out;
  out.rank = rank;
  out.ranks_per_process = per_process;
  out.guard = std::make_unique<watchdog>(std::chrono::duration<double>(a.timeout_s), rank);
  auto& guard = *out.guard;
  const auto partial = keep_partial_for_hangs(a, job, per_process, guard);
  guard.watch_ranks(*world, this_host_name());
  enact_start_fault(a.fault, rank);

  guard.heartbeat("start-up: describing every rank");
  assign_local_ranks_by_host(launch, *world, this_host_name());
  out.host = std::move(job.host);
  const auto& live = out.host;
  const bool use_gpu =
      every_rank_takes_gpus(*world, a.backend, asked.takes_gpus, live.devices.devices, live.devices.notes);
  const auto& backend_kind = checked_backend(a, *world, use_gpu, live);
  const auto devices = devices_of_ranks(*world, launch, live, use_gpu, per_process);
  out.start = std::chrono::system_clock::now();
  const auto host_facts = session::host_json(live.fingerprint);

  const auto run_rank = [&](const std::shared_ptr<bootstrap>& view, const core::device_info& device) {
    rank_outcome outcome;
    auto backend = backend_kind.create(view, device);
    outcome.backend = backend->description();
    outcome.size = view->size();
    outcome.rank_descriptions =
        view->gather(core::json_text(rank_description(view->rank(), launch, host_facts, device)));
    // One rank per process keeps what it has, should the run hang or lose a rank.
    const bool keeps = view->rank() % per_process == 0 && a.rank0_on_hang;
    if (keeps) {
      const std::lock_guard lock(partial->mutex);
      partial->data.rank_descriptions = outcome.rank_descriptions;
      partial->data.backend = outcome.backend;
      partial->data.measured = device;
      partial->data.start = out.start;
    }
    // One rank per process feeds the process's watchdog; rank 0 also shows the steps.
    const bool beats = view->rank() % per_process == 0;
    const bool reports = view->rank() == 0 && a.rank0_progress;
    const auto progress = [&](const std::string& step) {
      if (beats) guard.heartbeat(step);
      if (reports) a.rank0_progress(step);
    };
    // Every rank votes before each size, so that all stop at the same one.
    const sweep_stop stop = [&] {
      if (cancel == nullptr || outcome.interrupted) return outcome.interrupted;
      outcome.interrupted = view->max(cancel->load() ? 1.0 : 0.0) > 0;
      return outcome.interrupted;
    };
    for (int trial = 0; trial < a.trials && !outcome.interrupted; ++trial) {
      std::vector<sweep_row> rows;
      const sweep_row_done keep = [&](const sweep_row& row) {
        const std::lock_guard lock(partial->mutex);
        if (partial->data.trials.size() <= static_cast<std::size_t>(trial)) partial->data.trials.emplace_back();
        partial->data.trials.back().push_back(row);
      };
      for (const auto& sweep : sweeps) {
        auto part = run_sweep(*view, *backend, sweep, progress, stop, keeps ? keep : sweep_row_done());
        rows.insert(rows.end(), part.begin(), part.end());
      }
      if (!outcome.interrupted || outcome.trials.empty()) outcome.trials.push_back(std::move(rows));
    }
    view->barrier();
    return outcome;
  };

  auto outcome = run_process_ranks(world, devices, run_rank);
  out.trials = std::move(outcome.trials);
  out.rank_descriptions = std::move(outcome.rank_descriptions);
  out.backend = std::move(outcome.backend);
  out.size = outcome.size;
  out.interrupted = outcome.interrupted;
  out.measured = devices.front();
  guard.heartbeat("writing results");
  return out;
}

}  // namespace ironbench::comm
