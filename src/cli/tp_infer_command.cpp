// ironbench tp_infer: dstack's toy tensor-parallel inference (a column-sharded linear layer,
// an all_gather, a replicated linear layer) on every rank of an MPI job, against the same
// model on a single device. Rank 0 reports.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

#include "benchmarks/tp/tp_model.hpp"
#if IRONBENCH_WITH_GPU && IRONBENCH_WITH_NCCL
#include "benchmarks/tp/tp_gpu_rank.hpp"
#include "comm/nccl/nccl_communicator.hpp"
#endif
#include "blas/openblas.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "comm/gpu_ranks.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"
#include "cli/option_groups.hpp"
#include "comm/collectives_results.hpp"
#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#include "comm/watchdog.hpp"
#include "core/error.hpp"
#include "core/statistics.hpp"
#include "core/sweep.hpp"
#include "core/units.hpp"
#include "report/text_table.hpp"

#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif

namespace ironbench::cli {
namespace {

struct tp_arguments {
  std::string batch = "128,512,2048", hidden = "1024", timeout = "600s", backend = "auto";
  int iterations = 10, warmup_iterations = 2;
  bool quiet = false;
  report::output_options outputs;
};

struct timing {
  std::vector<double> samples_s;  // this rank's forward passes
  double latency_s = 0;           // slowest rank's mean forward
  double gather_s = 0;            // slowest rank's mean gather
};

#if IRONBENCH_WITH_GPU && IRONBENCH_WITH_NCCL
// Device memory the model owns, seen by the collective backend for one call.
class device_pointer final : public comm::comm_buffer {
 public:
  device_pointer(void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }
  void write(std::size_t, const void*, std::size_t) override { throw error("device_pointer: no host writes"); }
  void read(std::size_t, void*, std::size_t) const override { throw error("device_pointer: no host reads"); }

 private:
  void* data_;
  std::size_t bytes_;
};
#endif

#if IRONBENCH_WITH_MPI
template <typename Model>
timing time_forwards(Model& model, const typename Model::gather_function& gather, const tp_arguments& a,
                     comm::bootstrap* world) {
  for (int i = 0; i < a.warmup_iterations; ++i) (void)model.forward(gather);
  if (world != nullptr) world->barrier();
  timing t;
  double gather_total = 0;
  for (int i = 0; i < a.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    gather_total += model.forward(gather);
    t.samples_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double mean = core::summarize(t.samples_s).mean;
  t.latency_s = world != nullptr ? world->max(mean) : mean;
  t.gather_s = world != nullptr ? world->max(gather_total / a.iterations) : gather_total / a.iterations;
  return t;
}

// One case on every rank: the tensor-parallel timing and its checks, and (rank 0) the
// single-device run's.
struct tp_outcome {
  timing tp, single;
  std::size_t wrong = 0, single_wrong = 0;
  std::string detail, single_detail;
};

// Times `model`, then checks that every rank holds the same Z and (rank 0) rows of it
// against the reference.
template <typename Model>
timing measure_rank(Model& model, const benchmarks::tp_shape& shape, const typename Model::gather_function& gather,
                    const tp_arguments& a, comm::bootstrap& world, const std::vector<std::int64_t>& rows, int rank,
                    std::size_t& wrong, std::string& detail) {
  const auto t = time_forwards(model, gather, a, &world);
  const std::vector<float> z = model.output();
  double checksum = 0;
  for (float v : z) checksum += v;
  const bool replicated = world.max(checksum) == world.min(checksum);
  if (rank == 0) wrong = benchmarks::tp_check_rows(shape, z, rows, detail);
  if (!replicated) {
    wrong += 1;
    detail = "Z differs between ranks";
  }
  return t;
}

core::case_result tp_case(const benchmarks::tp_shape& shape, const char* mode, const timing& t, std::size_t wrong,
                          const std::string& detail, int iterations, const std::string& device) {
  core::case_result c;
  c.benchmark = "tp_infer";
  c.device = fmt::format("{} ranks", shape.ranks);
  c.notes["device"] = device;
  c.params.set("batch", shape.batch);
  c.params.set("hidden", shape.hidden);
  c.params.set("ranks", std::int64_t{shape.ranks});
  c.params.set("mode", std::string(mode));
  core::measurement m;
  m.samples_s = t.samples_s;
  m.total_iterations = static_cast<std::size_t>(iterations);
  m.stop = core::stop_reason::max_reps;
  m.time_s = core::summarize(t.samples_s);
  c.timing = m;
  c.work.flops = shape.flops();
  c.metrics.push_back({"latency_ms", t.latency_s * 1e3, "ms", "forward pass, mean, slowest rank"});
  c.metrics.push_back({"throughput", static_cast<double>(shape.batch) / t.latency_s, "samples/s", "batch / latency"});
  c.metrics.push_back({"tflops", shape.flops() / t.latency_s / 1e12, "TFLOP/s", "4 B H F / latency"});
  if (shape.ranks > 1) {
    c.metrics.push_back({"gather_ms", t.gather_s * 1e3, "ms", "all_gather per forward, slowest rank"});
    c.metrics.push_back({"gather_share", t.gather_s / t.latency_s, "", "all_gather time / forward time"});
  }
  c.notes["model"] = fmt::format("Z = relu(X W1) W2, X {}x{}, W1 {}x{} split in {} column shards, W2 {}x{}, fp32",
                                 shape.batch, shape.hidden, shape.hidden, shape.ffn(), shape.ranks, shape.ffn(),
                                 shape.hidden);
  c.notes["verification"] = "rows 0 and B-1 of Z against an extended-precision reference; Z equal on every rank";
  if (wrong > 0) {
    c.status = core::case_status::invalid;
    c.reason = fmt::format("{} wrong elements: {}", wrong, detail);
  }
  return c;
}
#endif

int execute(const tp_arguments& a, const invocation& call) {
  std::vector<core::axis> axes = {core::integer_axis("batch", {128, 512, 2048}, "rows of X"),
                                  core::integer_axis("hidden", {1024}, "H (F = 4 H)")};
  axes = core::apply_overrides("tp_infer", axes,
                               {core::parse_axis_override("batch=" + a.batch),
                                core::parse_axis_override("hidden=" + a.hidden)});
  const auto cases = core::expand_sweep(axes);
  if (a.iterations < 1 || a.warmup_iterations < 0) throw usage_error("need --iters >= 1 and --warmup_iters >= 0");
  const auto timeout_s = parse_duration_s(a.timeout, "--timeout");
  const auto targets = report::parse_targets(a.outputs);
#if !IRONBENCH_WITH_MPI
  (void)call;
  (void)cases;
  (void)timeout_s;
  throw usage_error("tp_infer needs MPI, and this build has none (install libopenmpi-dev and rebuild)");
#else
  if (a.backend != "auto" && a.backend != "mpi" && a.backend != "nccl" && a.backend != "rccl") {
    throw usage_error(fmt::format("unknown --backend '{}' (auto, mpi, nccl, rccl)", a.backend));
  }
  if ((a.backend == "nccl" || a.backend == "rccl") && !(IRONBENCH_WITH_NCCL && IRONBENCH_WITH_GPU)) {
    throw usage_error(fmt::format("--backend {}: this build has no GPU collectives", a.backend));
  }
  auto world = comm::mpi_world();
  const int rank = world->rank();
  const int ranks = world->size();
  for (const auto& p : cases) {
    if (p.integer("batch") < 1 || p.integer("hidden") < 1) throw usage_error("batch and hidden must be positive");
    if ((4 * p.integer("hidden")) % ranks != 0) {
      throw usage_error(fmt::format("F = 4 x hidden = {} does not split over {} ranks", 4 * p.integer("hidden"), ranks));
    }
  }
  if (rank == 0) report::prepare_results_dir(a.outputs);
  comm::watchdog guard(std::chrono::duration<double>(timeout_s), rank);
  auto launch = comm::detect_launch();
  comm::assign_local_ranks_by_host(launch, *world, comm::this_host_name());
  if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr && std::getenv("OMP_NUM_THREADS") == nullptr) {
    // Ranks on one node share its cores.
    const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    blas::openblas_set_threads(std::max(1, cores / std::max(1, launch.local_size)));
  }
  guard.heartbeat("start-up: describing every rank");
  const auto host = session::detect_live_host();
  // GPUs (NCCL/RCCL for the gather) when every rank has one, as collectives decides.
  const bool use_gpus = comm::every_rank_takes_gpus(
      *world, a.backend, a.backend == "nccl" || a.backend == "rccl" || (a.backend == "auto" && IRONBENCH_WITH_NCCL), host.devices.devices, host.devices.notes);
  std::optional<core::device_info> gpu;
  if (use_gpus) {
    const auto gpus = comm::gpus_of(host.devices.devices);
    gpu = gpus.at(static_cast<std::size_t>(comm::gpu_for(launch, static_cast<int>(gpus.size()))));
  }
  const core::device_info measured = gpu ? *gpu : host.devices.devices.front();
  std::string engine = fmt::format("OpenBLAS fp32, {} threads per rank", blas::openblas_threads());
  std::string collectives = world->description() + " (host buffers)";
#if IRONBENCH_WITH_GPU && IRONBENCH_WITH_NCCL
  std::unique_ptr<comm::collective_backend> gpu_collectives;
  if (gpu) {
    gpu_collectives = comm::nccl_device_backend(world, gpu->index);
    collectives = gpu_collectives->description();
  }
#endif
  const auto start = std::chrono::system_clock::now();
  const auto ranks_json =
      world->gather(comm::rank_description(rank, launch, session::host_json(host.fingerprint), measured).dump());

  core::run_result run;
  report::text_table table;
  for (const char* h : {"batch", "hidden", "ranks", "TP latency ms", "TP samples/s", "gather %", "1-device latency ms",
                        "1-device samples/s", "speedup", "efficiency", "check"}) {
    table.add_column(h);
  }
  for (const auto& p : cases) {
    benchmarks::tp_shape shape{p.integer("batch"), p.integer("hidden"), ranks};
    const std::vector<std::int64_t> rows = {0, shape.batch - 1};
    guard.heartbeat(fmt::format("tp_infer batch {} hidden {} on {} ranks", shape.batch, shape.hidden, ranks));
    tp_outcome outcome;
#if IRONBENCH_WITH_GPU && IRONBENCH_WITH_NCCL
    if (gpu) {
      benchmarks::tp_gpu_rank model(shape, rank, gpu->index);
      engine = model.description();
      const auto gather = [&](const float* send, float* receive, std::size_t count) {
        device_pointer from(const_cast<float*>(send), count * sizeof(float));
        device_pointer to(receive, count * sizeof(float) * static_cast<std::size_t>(ranks));
        const auto call = comm::shape_of(comm::collective::all_gather, to.bytes(), comm::element_type::fp32, ranks);
        (void)gpu_collectives->run(comm::collective::all_gather, &from, to, call, comm::element_type::fp32,
                                   comm::reduce_op::sum, 0);
        gpu_collectives->synchronize();
      };
      outcome.tp = measure_rank(model, shape, gather, a, *world, rows, rank, outcome.wrong, outcome.detail);
    }
#endif
    if (!gpu) {
      benchmarks::tp_cpu_rank model(shape, rank);
      const auto gather = [&](const float* send, float* receive, std::size_t count) {
        world->all_gather_bytes(send, receive, count * sizeof(float));
      };
      outcome.tp = measure_rank(model, shape, gather, a, *world, rows, rank, outcome.wrong, outcome.detail);
    }

    // The same model on one device: rank 0 alone, the others wait.
    guard.heartbeat(fmt::format("tp_infer batch {} hidden {} on one device", shape.batch, shape.hidden));
    if (rank == 0) {
      benchmarks::tp_shape one{shape.batch, shape.hidden, 1};
#if IRONBENCH_WITH_GPU && IRONBENCH_WITH_NCCL
      if (gpu) {
        benchmarks::tp_gpu_rank alone(one, 0, gpu->index);
        outcome.single = time_forwards(alone, benchmarks::tp_gpu_rank::local_gather(), a, nullptr);
        outcome.single_wrong = benchmarks::tp_check_rows(one, alone.output(), rows, outcome.single_detail);
      }
#endif
      if (!gpu) {
        benchmarks::tp_cpu_rank alone(one, 0);
        const auto copy = [](const float* send, float* receive, std::size_t count) { std::copy_n(send, count, receive); };
        outcome.single = time_forwards(alone, copy, a, nullptr);
        outcome.single_wrong = benchmarks::tp_check_rows(one, alone.output(), rows, outcome.single_detail);
      }
    }
    world->barrier();
    if (rank != 0) continue;
    const auto& tp = outcome.tp;
    const auto& single = outcome.single;
    auto tp_result = tp_case(shape, "tensor_parallel", tp, outcome.wrong, outcome.detail, a.iterations, measured.id);
    const double speedup = single.latency_s / tp.latency_s;
    tp_result.metrics.push_back({"speedup", speedup, "x", "single-device latency / tensor-parallel latency"});
    tp_result.metrics.push_back({"efficiency", speedup / ranks, "", "speedup / ranks"});
    run.cases.push_back(std::move(tp_result));
    run.cases.push_back(tp_case({shape.batch, shape.hidden, 1}, "single_device", single, outcome.single_wrong,
                                outcome.single_detail, a.iterations, measured.id));
    table.add_row({std::to_string(shape.batch), std::to_string(shape.hidden), std::to_string(ranks),
                   fmt::format("{:.3f}", tp.latency_s * 1e3), fmt::format("{:.0f}", shape.batch / tp.latency_s),
                   fmt::format("{:.1f}", 100 * tp.gather_s / tp.latency_s), fmt::format("{:.3f}", single.latency_s * 1e3),
                   fmt::format("{:.0f}", shape.batch / single.latency_s), fmt::format("{:.2f}", speedup),
                   fmt::format("{:.2f}", speedup / ranks), outcome.wrong + outcome.single_wrong == 0 ? "ok" : "WRONG"});
  }
  guard.heartbeat("writing results");
  if (rank != 0) return exit_ok;
  auto measured_cases = std::move(run.cases);
  run = session::rank0_run(call.argv, start, host, ranks_json, measured);
  run.cases = std::move(measured_cases);
  run.settings = {{"ranks", ranks},
                  {"backend", collectives},
                  {"compute", engine},
                  {"iterations", a.iterations},
                  {"warmup_iterations", a.warmup_iterations},
                  {"openblas_threads_per_rank", blas::openblas_threads()},
                  {"single_device", gpu ? "the same model on rank 0's GPU alone"
                                        : "the same model on rank 0 alone, with rank 0's threads"}};
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout, [&](std::ostream& out) {
    out << fmt::format("tp_infer: {} ranks ({}; {}), {} iterations after {} warm-up\n", ranks, collectives, engine,
                       a.iterations, a.warmup_iterations);
    table.render_text(out);
    out << fmt::format("run {}{}\n", core::to_string(run.status),
                       run.status_reason.empty() ? "" : ": " + run.status_reason);
  });
  return run.status == core::run_status::valid ? exit_ok : exit_failure;
#endif
}

}  // namespace

command_action add_tp_infer_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand(
      "tp_infer", "Toy tensor-parallel inference (column-sharded linear, all_gather, linear) vs one device; run under mpirun");
  auto a = std::make_shared<tp_arguments>();
  command->add_option("--batch", a->batch, "Batch sizes: list or range, e.g. 128:32768:x4")->capture_default_str();
  command->add_option("--hidden", a->hidden, "Hidden sizes H (F = 4 H must split over the ranks)")->capture_default_str();
  command->add_option("-n,--iters", a->iterations, "Timed forward passes per case")->capture_default_str();
  command->add_option("-w,--warmup_iters", a->warmup_iterations, "Untimed forward passes first")->capture_default_str();
  command->add_option("--backend", a->backend,
                      "auto (GPUs with nccl/rccl when every rank has one and the build has them, else CPUs with "
                      "mpi), mpi, nccl or rccl")
      ->capture_default_str();
  command->add_option("--timeout", a->timeout, "End the run when a step makes no progress for this long")->capture_default_str();
  command->add_flag("-q,--quiet", a->quiet, "No progress lines");
  add_output_options(*command, a->outputs);
  return [a, &call] { return execute(*a, call); };
}

}  // namespace ironbench::cli
