// ironbench collectives: nccl-tests' sweeps (all_reduce_perf, all_gather_perf ...) in one
// command, run by every rank of an MPI job; rank 0 prints the table and writes the results.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "comm/gpu_ranks.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"
#include "cli/option_groups.hpp"
#include "comm/collective_sweep.hpp"
#include "comm/collectives_results.hpp"
#if IRONBENCH_WITH_GPU
#include "comm/gpu_comm_buffer.hpp"
#endif
#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#include "comm/thread_ranks.hpp"
#include "comm/watchdog.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "ironbench/build_config.hpp"
#include "report/collectives_table.hpp"

#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif
#if IRONBENCH_WITH_NCCL
#include "comm/nccl/nccl_communicator.hpp"
#endif

namespace ironbench::cli {
namespace {

struct collectives_arguments {
  std::vector<std::string> collectives{"all_reduce"};
  std::string min_bytes = "8", max_bytes = "128M", step_bytes = "0";
  double step_factor = 2;
  int warmup_iterations = 5, iterations = 20, root = 0, check = 1, trials = 1, graph_launches = 0;
  int threads = 1, gpus_per_thread = 1;
  std::string datatypes = "fp32", ops = "sum", backend = "auto", timeout = "300s", inject_fault;
  bool quiet = false;
  report::output_options outputs;
};

void add_options(CLI::App& command, collectives_arguments& a) {
  command.add_option("collectives", a.collectives,
                     "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, or all")
      ->capture_default_str();
  command.add_option("-b,--minbytes", a.min_bytes, "Smallest size (nccl-tests' -b; K/M/G = 2^10..)")->capture_default_str();
  command.add_option("-e,--maxbytes", a.max_bytes, "Largest size (-e)")->capture_default_str();
  command.add_option("-f,--stepfactor", a.step_factor, "Multiply the size by this between steps (-f)")->capture_default_str();
  command.add_option("-i,--stepbytes", a.step_bytes, "Add this many bytes between steps instead (-i)")->capture_default_str();
  command.add_option("-w,--warmup_iters", a.warmup_iterations, "Untimed iterations per size (-w)")->capture_default_str();
  command.add_option("-n,--iters", a.iterations, "Timed iterations per size (-n)")->capture_default_str();
  command.add_option("-d,--datatype", a.datatypes,
                     "int8, int32, fp16, bf16, fp32, fp64 (or nccl-tests' names), comma-separated, or all")
      ->capture_default_str();
  command.add_option("-o,--op", a.ops, "sum, prod, max, min, avg, comma-separated, or all")->capture_default_str();
  command.add_option("-r,--root", a.root, "Root rank of broadcast and reduce (-r)")->capture_default_str();
  command.add_option("-c,--check", a.check, "Check results and count wrong elements: 1 or 0 (-c)")->capture_default_str();
  command.add_option("-G,--cudagraph", a.graph_launches,
                     "Record the -n iterations in a CUDA/HIP graph and time this many replays; 0: no graph (-G)")
      ->capture_default_str();
  command.add_option("-t,--nthreads", a.threads,
                     "GPU ranks per process, one thread each (nccl-tests' -t); GPU collectives only")
      ->capture_default_str();
  command.add_option("-g,--ngpus", a.gpus_per_thread,
                     "Multiplies the GPU ranks per process (nccl-tests' -g); each GPU still gets its own thread")
      ->capture_default_str();
  command.add_option("--trials", a.trials, "Repeat the whole sweep; report mean, stdev and CV per size")->capture_default_str();
  command.add_option("--backend", a.backend,
                     "auto (nccl/rccl when every rank has a GPU and the build has them, else mpi), mpi (host "
                     "buffers), mpi-gpu (GPU buffers handed to a GPU-aware MPI), nccl or rccl (one GPU per rank, "
                     "chosen by local rank)")
      ->capture_default_str();
  command.add_option("--timeout", a.timeout, "End the run when a step makes no progress for this long")->capture_default_str();
  command.add_option("--inject-fault", a.inject_fault,
                     "Test the failure handling: hang@RANK (that rank stops) or exit@RANK (that rank dies)");
  command.add_flag("-q,--quiet", a.quiet, "No progress lines");
  add_output_options(command, a.outputs);
}

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

struct fault {
  std::string kind;  // "hang" or "exit"
  int rank = -1;
};

fault parse_fault(const std::string& text) {
  if (text.empty()) return {};
  const auto at = text.find('@');
  fault f;
  if (at != std::string::npos) {
    f.kind = text.substr(0, at);
    f.rank = static_cast<int>(parse_integer(text.substr(at + 1), "--inject-fault rank"));
  }
  if ((f.kind != "hang" && f.kind != "exit") || f.rank < 0) {
    throw usage_error(fmt::format("--inject-fault takes hang@RANK or exit@RANK, not '{}'", text));
  }
  return f;
}

// The sweeps to run for one trial: per element type, the reducing collectives once per
// operator and the others once.
std::vector<comm::sweep_settings> plan(const collectives_arguments& a, const comm::sweep_settings& base) {
  const auto collectives = [&] {
    std::vector<std::string> names = a.collectives;
    std::string joined;
    for (const auto& n : names) joined += (joined.empty() ? "" : ",") + n;
    return parse_list(joined, comm::all_collectives(), comm::collective_from_string, "collective");
  }();
  const auto types = parse_list(a.datatypes, comm::all_element_types(), comm::element_type_from_string, "datatype");
  const auto ops = parse_list(a.ops, comm::all_reduce_ops(), comm::reduce_op_from_string, "reduction op");
  std::vector<comm::collective> reducing, moving;
  for (auto c : collectives) (comm::reduces(c) ? reducing : moving).push_back(c);
  std::vector<comm::sweep_settings> sweeps;
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
  const auto base = base_settings(a);
  const auto timeout_s = parse_duration_s(a.timeout, "--timeout");
  const auto injected = parse_fault(a.inject_fault);
  const auto targets = report::parse_targets(a.outputs);
  if (a.backend != "auto" && a.backend != "mpi" && a.backend != "mpi-gpu" && a.backend != "nccl" &&
      a.backend != "rccl") {
    throw usage_error(fmt::format("unknown --backend '{}' (auto, mpi, mpi-gpu, nccl, rccl)", a.backend));
  }
  const bool mpi_gpu = a.backend == "mpi-gpu";
  if (mpi_gpu && !IRONBENCH_WITH_GPU) {
    throw usage_error("--backend mpi-gpu: this build has no GPU runtime (it needs CUDA or ROCm)");
  }
  if ((a.backend == "nccl" || a.backend == "rccl") && !IRONBENCH_WITH_NCCL) {
    throw usage_error(fmt::format("--backend {}: this build has no GPU collectives (it needs CUDA with NCCL or ROCm with RCCL, and MPI)",
                                  a.backend));
  }
  std::vector<comm::sweep_settings> sweeps = plan(a, base);
#if !IRONBENCH_WITH_MPI
  (void)call;
  (void)timeout_s;
  (void)injected;
  throw usage_error("collectives need MPI, and this build has none (install libopenmpi-dev and rebuild)");
#else
  auto world = comm::mpi_world();
  const int rank = world->rank();
  const int per_process = a.threads * a.gpus_per_thread;
  if (a.threads < 1 || a.gpus_per_thread < 1) throw usage_error("--nthreads and --ngpus must be at least 1");
  if (base.root < 0 || base.root >= world->size() * per_process) {
    throw usage_error(fmt::format("--root {} is not a rank (the job has {})", base.root, world->size() * per_process));
  }
  if (rank == 0) report::prepare_results_dir(a.outputs);
  comm::watchdog guard(std::chrono::duration<double>(timeout_s), rank);
  if (injected.rank == rank && injected.kind == "exit") {
    std::cerr << fmt::format("ironbench: rank {} exits now (--inject-fault exit@{})\n", rank, rank);
    std::_Exit(3);
  }
  if (injected.rank == rank && injected.kind == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }

  guard.heartbeat("start-up: describing every rank");
  auto launch = comm::detect_launch();
  comm::assign_local_ranks_by_host(launch, *world, comm::this_host_name());
  const auto host = session::detect_live_host();
  const auto gpus = comm::gpus_of(host.devices.devices);
  const bool use_gpu = comm::every_rank_takes_gpus(
      *world, a.backend, a.backend == "nccl" || a.backend == "rccl" || mpi_gpu || (a.backend == "auto" && IRONBENCH_WITH_NCCL), host.devices.devices, host.devices.notes);
  const bool nccl = use_gpu && !mpi_gpu;
  if (per_process > 1 && !nccl) {
    throw usage_error(fmt::format("--nthreads/--ngpus {}: several ranks per process need GPU collectives (NCCL/RCCL)",
                                  per_process));
  }
  if (base.graph_launches > 0 && !nccl) {
    throw usage_error(fmt::format("--cudagraph {}: MPI backends have no GPU graphs", base.graph_launches));
  }
  if (mpi_gpu) {
    // Device pointers handed to an MPI that does not take them crash it: ask first. Some
    // GPU-aware builds answer no (Open MPI's query is known to), so the user may overrule.
    // Every rank decides together, so that none goes on alone.
    std::string why;
    const auto aware = comm::mpi_gpu_aware(gpus.front().kind == core::device_kind::hip ? "hip" : "cuda", why);
    const char* asserted = std::getenv("IRONBENCH_MPI_GPU_AWARE");
    const bool overruled = asserted != nullptr && std::string(asserted) == "1";
    const bool ok = aware.value_or(false) || overruled;
    if (world->min(ok ? 1.0 : 0.0) == 0.0) {
      throw usage_error(fmt::format("--backend mpi-gpu: {} on rank {}{}; set IRONBENCH_MPI_GPU_AWARE=1 if it is GPU-aware",
                                    aware.has_value() ? "this MPI says it is not GPU-aware (" + why + ")" : why, rank,
                                    ok ? " (another rank's MPI said no)" : ""));
    }
  }
  // The device of each rank of this process: one GPU per rank by local rank, or with several
  // ranks per process GPUs local rank x ranks per process + thread (nccl-tests' order).
  std::vector<core::device_info> devices;
  if (!use_gpu) {
    devices.push_back(host.devices.devices.front());
  } else if (per_process == 1) {
    devices.push_back(gpus.at(static_cast<std::size_t>(comm::gpu_for(launch, static_cast<int>(gpus.size())))));
  } else {
    // Decided together: a process short of GPUs must not leave the others waiting in NCCL.
    const int first = launch.local_rank * per_process;
    const bool fits = first + per_process <= static_cast<int>(gpus.size());
    if (world->min(fits ? 1.0 : 0.0) == 0.0) {
      throw usage_error(fmt::format("{} ranks per process take GPUs local rank x {} onwards; rank {} (local rank {}) "
                                    "sees {} GPUs{}",
                                    per_process, per_process, rank, launch.local_rank, gpus.size(),
                                    fits ? ", enough, but another process has too few" : ", too few"));
    }
    for (int t = 0; t < per_process; ++t) devices.push_back(gpus.at(static_cast<std::size_t>(first + t)));
  }
  const auto start = std::chrono::system_clock::now();
  const auto host_facts = session::host_json(host.fingerprint);

  // Everything one rank does: its backend, its description, the sweeps of every trial.
  struct rank_outcome {
    std::vector<std::vector<comm::sweep_row>> trials;
    std::vector<std::string> ranks_json;
    std::string backend;
    int size = 1;
  };
  const auto run_rank = [&](const std::shared_ptr<comm::bootstrap>& view, const core::device_info& device) {
    rank_outcome outcome;
    std::unique_ptr<comm::collective_backend> backend;
#if IRONBENCH_WITH_NCCL
    if (nccl) backend = comm::nccl_device_backend(view, device.index);
#endif
#if IRONBENCH_WITH_GPU
    if (mpi_gpu) {
      comm::select_gpu(device.index);
      backend = comm::mpi_device_backend(view, {fmt::format("device buffers, {}", device.id),
                                                [](std::size_t bytes) { return comm::gpu_comm_buffer(bytes); },
                                                comm::gpu_copy});
    }
#endif
    if (!backend) backend = comm::mpi_host_backend(view);
    outcome.backend = backend->description();
    outcome.size = view->size();
    outcome.ranks_json = view->gather(comm::rank_description(view->rank(), launch, host_facts, device).dump());
    // One rank per process feeds the process's watchdog; rank 0 also shows the steps.
    const bool beats = view->rank() % per_process == 0;
    const bool reports = view->rank() == 0;
    const auto progress = [&](const std::string& step) {
      if (beats) guard.heartbeat(step);
      if (reports && !a.quiet) std::cerr << "[" << step << "]\r" << std::flush;
    };
    for (int trial = 0; trial < a.trials; ++trial) {
      std::vector<comm::sweep_row> rows;
      for (const auto& sweep : sweeps) {
        auto part = comm::run_sweep(*view, *backend, sweep, progress);
        rows.insert(rows.end(), part.begin(), part.end());
      }
      outcome.trials.push_back(std::move(rows));
    }
    view->barrier();
    return outcome;
  };

  rank_outcome outcome;
  if (per_process == 1) {
    outcome = run_rank(world, devices.front());
  } else {
    // Thread 0 is this (MPI's) thread: only it calls MPI. A rank that fails ends the process,
    // since the others would wait for it at their next exchange.
    auto group = std::make_shared<comm::thread_group>(*world, per_process);
    std::vector<rank_outcome> outcomes(static_cast<std::size_t>(per_process));
    const auto run_thread = [&](int t) {
      try {
        outcomes[static_cast<std::size_t>(t)] =
            run_rank(std::make_shared<comm::thread_rank>(group, t), devices[static_cast<std::size_t>(t)]);
      } catch (const std::exception& e) {
        std::cerr << fmt::format("ironbench: error: rank {}: {}\n", rank * per_process + t, e.what());
        std::_Exit(exit_failure);
      }
    };
    std::vector<std::thread> others;
    for (int t = 1; t < per_process; ++t) others.emplace_back(run_thread, t);
    run_thread(0);
    for (auto& thread : others) thread.join();
    outcome = std::move(outcomes.front());
  }
  const auto& trials = outcome.trials;
  const auto& ranks_json = outcome.ranks_json;
  const core::device_info& measured = devices.front();
  guard.heartbeat("writing results");
  if (rank != 0) return comm::summarize(trials.front()).wrong == 0 ? exit_ok : exit_failure;

  if (!a.quiet) std::cerr << std::string(60, ' ') << '\r';
  auto run = session::rank0_run(call.argv, start, host, ranks_json, measured);
  run.settings = comm::settings_json(base, outcome.size, outcome.backend, a.trials, timeout_s);
  run.settings["ranks_per_process"] = per_process;
  run.cases = comm::cases_of(trials, outcome.size, base.iterations, base.warmup_iterations);
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout, [&](std::ostream& out) {
    out << fmt::format("# ironbench collectives: {} ranks, {}, minBytes {} maxBytes {} step: {} warmup iters: {} "
                       "iters: {} validation: {}\n",
                       outcome.size, outcome.backend, base.min_bytes, base.max_bytes,
                       base.increment > 0 ? fmt::format("{}(bytes)", base.increment)
                                          : fmt::format("{:g}(factor)", base.factor),
                       base.warmup_iterations, base.iterations, base.check ? 1 : 0);
    for (const auto& r : run.host["ranks"]) {
      out << fmt::format("#  Rank {:>3} Pid {:>7} on {:>12} device {}\n", r.value("rank", 0), r.value("pid", 0),
                         r.value("hostname", std::string("?")), r.value("device", std::string("?")));
    }
    for (std::size_t t = 0; t < trials.size(); ++t) {
      if (trials.size() > 1) out << fmt::format("# trial {} of {}\n", t + 1, trials.size());
      report::write_collectives_table(out, trials[t]);
    }
    if (trials.size() > 1) {
      report::write_trial_table(out, report::trial_statistics_of(trials), trials.size());
    }
    out << fmt::format("run {}: {}\n", core::to_string(run.status), run.status_reason.empty() ? "every result checked"
                                                                                                : run.status_reason);
  });
  return run.status == core::run_status::valid ? exit_ok : exit_failure;
#endif
}

}  // namespace

command_action add_collectives_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand(
      "collectives", "Collective bandwidth as nccl-tests measures it (run under mpirun/srun; rank 0 reports)");
  auto arguments = std::make_shared<collectives_arguments>();
  add_options(*command, *arguments);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
