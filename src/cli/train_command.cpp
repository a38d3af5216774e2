// ironbench train: training throughput on libtorch (workloads mlp, gpt, lora), on one device
// or data-parallel over the ranks of an MPI job, swept over batch sizes and rank counts.
// Lives in the ironbench-train executable (the only one linked with libtorch); `ironbench
// train` hands over to it.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"
#include "cli/option_groups.hpp"
#include "comm/collectives_results.hpp"
#include "comm/launch_environment.hpp"
#include "comm/watchdog.hpp"
#include "core/axis.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "report/text_table.hpp"
#include "telemetry/case_telemetry.hpp"
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

namespace ironbench::cli {
namespace {

#if IRONBENCH_WITH_MPI
int world_size() { return comm::mpi_world()->size(); }
int world_rank() { return comm::mpi_world()->rank(); }
/// Whether any rank of the job was interrupted (also a barrier).
bool any_rank(bool flag) { return comm::mpi_world()->max(flag ? 1 : 0) > 0; }
std::vector<std::string> describe_ranks(const std::string& mine) { return comm::mpi_world()->gather(mine); }
std::unique_ptr<train::gradient_transport> transport_over(int ranks, torch::Device device) {
  if (device.is_cpu()) return train::mpi_gradient_transport(ranks);
#if IRONBENCH_TRAIN_NCCL
  return train::nccl_gradient_transport(ranks, device);
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
std::unique_ptr<train::gradient_transport> transport_over(int, torch::Device) { no_mpi(); }
#endif

struct train_arguments {
  std::string workload = "gpt";
  std::string model = "small";
  std::int64_t layers = 0, heads = 0, d_model = 0, d_ff = 0, seq_len = 0, vocabulary = 0;
  std::string widths = "4096-8192-8192-4096";
  std::string batch = "8";
  std::string scaling;
  std::string device = "auto";
  std::string dtype = "auto";
  std::string lora_targets = "qkv,proj";
  std::int64_t lora_rank = 8;
  double lora_alpha = 16;
  int threads = 0;
  int telemetry_interval_ms = 100;
  std::string timeout = "1800s";
  bool no_fused = false;
  bool quiet = false;
  train::train_settings settings;
  report::output_options outputs;
};

std::vector<std::int64_t> parse_list(const std::string& name, const std::string& text) {
  const auto target = core::integer_axis(name, {1}, name);
  std::vector<std::int64_t> values;
  for (const auto& v : core::parse_axis_values(target, core::parse_axis_override(name + "=" + text))) {
    values.push_back(std::get<std::int64_t>(v));
  }
  return values;
}

std::vector<std::int64_t> parse_widths(const std::string& text) {
  std::vector<std::int64_t> widths;
  std::size_t from = 0;
  while (from <= text.size()) {
    const auto to = std::min(text.find('-', from), text.size());
    widths.push_back(parse_integer(text.substr(from, to - from), "--widths"));
    from = to + 1;
  }
  return widths;
}

train::train_settings settings_from(const train_arguments& a, bool on_gpu) {
  train::train_settings s = a.settings;
  if (a.workload == "mlp") {
    s.kind = train::workload::mlp;
    s.mlp_widths = parse_widths(a.widths);
  } else if (a.workload == "gpt" || a.workload == "lora") {
    s.kind = a.workload == "gpt" ? train::workload::gpt : train::workload::lora;
    if (a.model == "custom") {
      s.shape = train::gpt_shape{};
    } else if (auto preset = train::find_gpt_preset(a.model)) {
      s.shape = *preset;
    } else {
      throw usage_error(fmt::format("unknown --model '{}' (presets: small, medium, large, xl, 1.5b, 3b, 7b, 13b; "
                                    "or custom with --layers --heads --d-model --d-ff --seq-len)",
                                    a.model));
    }
    const bool custom = a.layers || a.heads || a.d_model || a.d_ff || a.seq_len || a.vocabulary;
    if (custom && a.model != "custom") s.shape.name = s.shape.name + "+custom";
    if (a.layers) s.shape.layers = a.layers;
    if (a.heads) s.shape.heads = a.heads;
    if (a.d_model) s.shape.d_model = a.d_model;
    if (a.d_ff) s.shape.d_ff = a.d_ff;
    if (a.seq_len) s.shape.seq_len = a.seq_len;
    if (a.vocabulary) s.shape.vocabulary = a.vocabulary;
    if (s.kind == train::workload::lora) {
      s.lora.rank = a.lora_rank;
      s.lora.alpha = a.lora_alpha;
      s.lora.targets = train::parse_lora_targets(a.lora_targets);
    }
  } else {
    throw usage_error(fmt::format("unknown workload '{}' (use mlp, gpt or lora)", a.workload));
  }
  s.dtype = a.dtype == "auto" ? (on_gpu ? "bf16" : "fp32") : a.dtype;
  s.fused_optimizer = !a.no_fused;
  return s;
}

torch::Device pick_device(const std::string& text, const comm::launch_info& launch) {
  const int gpus = train::compat::gpu_count();
  if (text == "auto") {
    if (gpus > 0) return {torch::kCUDA, static_cast<torch::DeviceIndex>(comm::gpu_for(launch, gpus))};
    return torch::kCPU;
  }
  if (text == "cpu") return torch::kCPU;
  if (text == "cuda" || text == "gpu" || text.rfind("cuda:", 0) == 0 || text.rfind("hip:", 0) == 0) {
    if (gpus == 0) {
      throw usage_error(fmt::format("--device {}: libtorch sees no GPU here (libtorch {}{})", text,
                                    train::compat::torch_version(),
                                    IRONBENCH_TORCH_CUDA ? ", built with CUDA/ROCm" : ", a CPU-only build"));
    }
    const auto colon = text.find(':');
    const int index = colon == std::string::npos ? comm::gpu_for(launch, gpus)
                                                 : static_cast<int>(parse_integer(text.substr(colon + 1), "--device"));
    if (index < 0 || index >= gpus) throw usage_error(fmt::format("--device {}: there are {} GPUs", text, gpus));
    return {torch::kCUDA, static_cast<torch::DeviceIndex>(index)};
  }
  throw usage_error(fmt::format("unknown --device '{}' (use auto, cpu, cuda or cuda:N)", text));
}

/// The device_info ironbench's own enumeration has for the training device.
core::device_info measured_device(const session::live_host& host, torch::Device device) {
  const std::string wanted = device.is_cpu() ? "cpu" : fmt::format("{}:{}", IRONBENCH_TORCH_HIP ? "hip" : "cuda",
                                                                     static_cast<int>(device.index()));
  for (const auto& d : host.devices.devices) {
    if (d.id == wanted || (device.is_cpu() && d.kind == core::device_kind::cpu)) return d;
  }
  core::device_info fallback;
  fallback.id = wanted;
  fallback.name = wanted;
  fallback.kind = device.is_cpu() ? core::device_kind::cpu : core::device_kind::cuda;
  fallback.index = device.is_cpu() ? 0 : device.index();
  return fallback;
}

// What a train run will do, checked before anything is measured.
struct training_plan {
  std::vector<std::int64_t> batches, scaling;
  double timeout_s = 0;
  comm::launch_info launch;
  bool distributed = false;
  int world_size = 1, rank = 0;
  torch::Device device = torch::kCPU;
  train::train_settings settings;
};

training_plan plan_training(const train_arguments& a) {
  training_plan p;
  p.batches = parse_list("batch", a.batch);
  if (!a.scaling.empty()) p.scaling = parse_list("scaling", a.scaling);
  for (const auto b : p.batches) {
    if (b < 1) throw usage_error(fmt::format("--batch must be >= 1 (got {})", b));
  }
  p.timeout_s = parse_duration_s(a.timeout, "--timeout");
  p.launch = comm::detect_launch();
  p.distributed = p.launch.size > 1 || !p.scaling.empty();
  p.world_size = p.distributed ? cli::world_size() : 1;
  p.rank = p.distributed ? world_rank() : 0;
  for (const auto n : p.scaling) {
    if (n < 1 || n > p.world_size) {
      throw usage_error(fmt::format("--scaling {}: the job has {} rank{} (start it with mpirun -np {})", n,
                                    p.world_size, p.world_size == 1 ? "" : "s",
                                    *std::max_element(p.scaling.begin(), p.scaling.end())));
    }
  }
  p.device = pick_device(a.device, p.launch);
  p.settings = settings_from(a, !p.device.is_cpu());
  p.settings.batch = p.batches.front();
  if (auto why = p.settings.invalid_reason(); !why.empty()) throw usage_error(why);
  if (p.settings.dtype == "fp16" && p.device.is_cpu()) throw usage_error("--dtype fp16 needs a GPU; use bf16 on CPUs");
  return p;
}

int execute(train_arguments& a, const invocation& call) {
  const auto plan = plan_training(a);
  const auto& batches = plan.batches;
  const auto& scaling = plan.scaling;
  const auto& launch = plan.launch;
  const auto& device = plan.device;
  const auto& settings = plan.settings;
  const bool distributed = plan.distributed;
  const int world_size = plan.world_size, rank = plan.rank;
  const auto targets = report::parse_targets(a.outputs);

  const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = a.threads > 0 ? a.threads : std::max(1, cores / std::max(1, launch.local_size));
  at::set_num_threads(threads);
  if (rank == 0) report::prepare_results_dir(a.outputs);
  comm::watchdog guard(std::chrono::duration<double>(plan.timeout_s), rank);
  guard.heartbeat("start-up: describing the host");
  const auto host = session::detect_live_host();
  const auto start = std::chrono::system_clock::now();
  std::vector<std::string> rank_descriptions;
  const auto measured = measured_device(host, device);
  if (distributed) {
    rank_descriptions = describe_ranks(comm::rank_description(rank, launch, session::host_json(host.fingerprint), measured).dump());
  }
  auto& console = report::console_stream(targets);
  const auto monitors = telemetry::gpu_case_monitors(std::chrono::milliseconds(a.telemetry_interval_ms));
  const auto& cancel = install_interrupt_flag();
  bool interrupted = false;

  train::training_case_context context;
  context.settings = settings;
  context.device = measured;
  context.scaling_sweep = !scaling.empty();
  std::vector<core::case_result> cases;
  json telemetry_series = json::array();
  std::vector<std::int64_t> rank_counts = scaling;
  if (rank_counts.empty()) rank_counts = {world_size};
  for (const auto ranks : rank_counts) {
    if (interrupted) break;
    std::unique_ptr<train::gradient_transport> transport;
    if (distributed && (ranks > 1 || world_size > 1)) {
      transport = transport_over(static_cast<int>(ranks), device);
      if (ranks == 1) transport.reset();  // one rank alone trains without data parallelism
    }
    const bool participates = rank < ranks;
    for (const auto batch : batches) {
      if (!participates || interrupted) continue;
      auto s = settings;
      s.batch = batch;
      const std::string label = fmt::format("{} {} batch {} on {} {}", train::to_string(s.kind),
                                            s.kind == train::workload::mlp ? "" : s.shape.name, batch, ranks,
                                            ranks == 1 ? "rank" : "ranks");
      guard.heartbeat(label);
      if (rank == 0 && !a.quiet) console << fmt::format("train: {}\n", label) << std::flush;
      auto monitor = rank == 0 && monitors ? monitors(measured) : nullptr;
      const auto outcome = train::run_training(s, device, transport.get(), [&](int step, const train::step_record& r) {
        guard.heartbeat(fmt::format("{}: step {}", label, step + 1));
        if (rank == 0 && !a.quiet) {
          console << fmt::format("  step {:>4}/{}{} loss {:.4f}  {:.1f} ms\n", step + 1, s.warmup_steps + s.steps,
                                 step < s.warmup_steps ? " (warm-up)" : "", r.loss, r.seconds * 1e3)
                  << std::flush;
        }
      }, &cancel);
      interrupted = interrupted || outcome.interrupted;
      if (rank != 0) continue;
      context.settings = s;
      auto c = train::training_case(context, outcome, static_cast<int>(ranks));
      if (monitor) {
        auto seen = monitor->finish();
        c.telemetry = seen.summary;
        for (auto& m : seen.metrics) c.metrics.push_back(std::move(m));
        if (!seen.series.is_null()) {
          telemetry_series.push_back({{"case", cases.size()}, {"device", measured.id}, {"samples", seen.series}});
        }
      }
      cases.push_back(std::move(c));
    }
    if (distributed) interrupted = any_rank(interrupted || cancel.load());
  }
  if (rank != 0) return exit_ok;
  train::add_scaling_efficiency(cases);

  guard.heartbeat("writing results");
  auto run = session::rank0_run(call.argv, start, host, rank_descriptions, measured);
  if (!distributed) run.host.erase("ranks");
  run.cases = std::move(cases);
  run.telemetry = std::move(telemetry_series);
  run.settings = train::training_settings_json(settings, device.str(), threads, world_size, batches, scaling);
  if (interrupted) {
    run.status = core::run_status::interrupted;
    run.status_reason = "interrupted (SIGINT or SIGTERM); the steps measured so far are kept";
  }
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout, [&](std::ostream& out) {
    train::render_training_table(run, out);
    out << fmt::format("run {}{}\n", core::to_string(run.status),
                       run.status_reason.empty() ? "" : ": " + run.status_reason);
  });
  if (run.status == core::run_status::interrupted) return exit_interrupted;
  return run.status == core::run_status::valid ? exit_ok : exit_failure;
}

}  // namespace

command_action add_train_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand("train", "Training throughput on libtorch: mlp, gpt (presets small .. 13b), lora");
  auto a = std::make_shared<train_arguments>();
  auto& s = a->settings;
  command->add_option("workload", a->workload, "mlp, gpt or lora")->required();
  command->add_option("--model", a->model, "GPT preset: small, medium, large, xl, 1.5b, 3b, 7b, 13b, or custom")
      ->capture_default_str();
  command->add_option("--layers", a->layers, "Override: transformer blocks");
  command->add_option("--heads", a->heads, "Override: attention heads");
  command->add_option("--d-model", a->d_model, "Override: residual width");
  command->add_option("--d-ff", a->d_ff, "Override: MLP inner width");
  command->add_option("--seq-len", a->seq_len, "Override: tokens per sequence");
  command->add_option("--vocab", a->vocabulary, "Override: vocabulary size (50257)");
  command->add_option("--widths", a->widths, "mlp: layer widths")->capture_default_str();
  command->add_option("--batch", a->batch, "Per-device batch sizes to sweep, e.g. 1,16,64,128")->capture_default_str();
  command->add_option("--grad-accum", s.grad_accum, "Micro-batches per optimizer step")->capture_default_str();
  command->add_option("--steps", s.steps, "Timed optimizer steps")->capture_default_str();
  command->add_option("--warmup-steps", s.warmup_steps, "Untimed steps first")->capture_default_str();
  command->add_option("--dtype", a->dtype, "fp32, bf16 or fp16 (autocast); auto = bf16 on GPUs, fp32 on CPUs")
      ->capture_default_str();
  command->add_flag("--checkpoint-activations", s.activation_checkpointing, "Recompute block activations in backward");
  command->add_flag("--no-fused-optimizer", a->no_fused, "Use torch::optim::AdamW even where a fused kernel exists");
  command->add_option("--lr", s.lr, "AdamW learning rate")->capture_default_str();
  command->add_option("--weight-decay", s.weight_decay, "AdamW weight decay")->capture_default_str();
  command->add_option("--seed", s.seed, "Model initialisation and synthetic data")->capture_default_str();
  command->add_option("--data-batches", s.data_batches, "Distinct synthetic micro-batches, cycled")->capture_default_str();
  command->add_option("--lora-rank", a->lora_rank, "lora: adapter rank r")->capture_default_str();
  command->add_option("--lora-alpha", a->lora_alpha, "lora: scale alpha (adapters add alpha/r B A x)")->capture_default_str();
  command->add_option("--lora-targets", a->lora_targets, "lora: qkv, proj, fc1, fc2 or all")->capture_default_str();
  command->add_option("--scaling", a->scaling,
                      "Data-parallel rank counts to sweep, e.g. 1,2,4,8 (run under mpirun with the largest)");
  command->add_option("--bucket-mb", s.bucket_megabytes, "Gradient bucket size for data parallelism (MB)")
      ->capture_default_str();
  command->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  command->add_option("--threads", a->threads, "CPU threads per rank (default: cores / ranks on the node)");
  command->add_option("--telemetry-interval-ms", a->telemetry_interval_ms, "GPU telemetry sampling period")
      ->capture_default_str();
  command->add_option("--timeout", a->timeout, "End the run when a step makes no progress for this long")
      ->capture_default_str();
  command->add_flag("-q,--quiet", a->quiet, "No per-step lines");
  add_output_options(*command, a->outputs);
  return [a, &call] { return execute(*a, call); };
}

}  // namespace ironbench::cli
