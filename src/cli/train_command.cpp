// ironbench train: training throughput on libtorch (workloads mlp, gpt, lora), on one device
// or data-parallel over the ranks of an MPI job, swept over batch sizes and rank counts
// (train/train_run.hpp). Lives in the ironbench-train executable (the only one linked with
// libtorch); `ironbench train` hands over to it.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/hung_run.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_groups.hpp"
#include "core/units.hpp"
#include "session/run_setup.hpp"
#include "telemetry/case_telemetry.hpp"
#include "train/train_run.hpp"
#include "train/training_results.hpp"

namespace ironbench::cli {
namespace {

struct train_arguments {
  train::train_request request;
  bool no_fused = false;
  int telemetry_interval_ms = 100;
  bool quiet = false;
  report::output_options outputs;
};

/// Rank 0's run of `outcome` (whole, interrupted or hung).
core::run_result run_of(const train::train_sweep_outcome& outcome, const invocation& call) {
  auto run = session::rank0_run(call.argv, outcome.start, outcome.host, outcome.rank_descriptions, outcome.measured);
  if (!outcome.distributed) run.host.erase("ranks");
  run.cases = outcome.cases;
  run.telemetry = outcome.telemetry_series;
  run.settings = outcome.settings;
  return run;
}

/// The console report: the training table and the run's status.
std::function<void(std::ostream&)> console_of(const core::run_result& run) {
  return [&run](std::ostream& out) {
    train::render_training_table(run, out);
    out << fmt::format("run {}{}\n", core::to_string(run.status),
                       run.status_reason.empty() ? "" : ": " + run.status_reason);
  };
}

int execute(train_arguments& a, const invocation& call) {
  a.request.fused_optimizer = !a.no_fused;
  const auto targets = report::parse_targets(a.outputs);
  auto& console = report::console_stream(targets);
  train::train_callbacks callbacks;
  callbacks.on_ready = [&](int rank) {
    if (rank == 0) report::prepare_results_dir(a.outputs);
  };
  callbacks.on_case = [&](const std::string& label) {
    if (!a.quiet) console << fmt::format("train: {}\n", label) << std::flush;
  };
  callbacks.on_step = [&](const train::train_settings& s, int step, const train::step_record& r) {
    if (a.quiet) return;
    console << fmt::format("  step {:>4}/{}{} loss {:.4f}  {:.1f} ms\n", step + 1, s.warmup_steps + s.steps,
                           step < s.warmup_steps ? " (warm-up)" : "", r.loss, r.seconds * 1e3)
            << std::flush;
  };
  callbacks.monitors = telemetry::gpu_case_monitors(std::chrono::milliseconds(a.telemetry_interval_ms));
  // A hang: rank 0 writes the cases it measured so far, with the ranks the job waits for.
  const double timeout_s = parse_duration_s(a.request.timeout, "--timeout");
  callbacks.rank0_on_hang = [&](const train::train_sweep_outcome& so_far, const comm::hang_verdict& verdict) {
    auto run = run_of(so_far, call);
    write_hung_run(run, verdict, timeout_s, "the cases measured before",
                   {targets, a.outputs, so_far.host.fingerprint.hostname, so_far.start, console_of(run)});
  };
  auto outcome = train::run_training_sweep(a.request, callbacks, &install_interrupt_flag());
  if (outcome.rank != 0) return exit_ok;

  auto run = run_of(outcome, call);
  if (outcome.interrupted) core::mark_interrupted(run, "the steps measured so far");
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, outcome.host.fingerprint.hostname, outcome.start, std::cout,
                            console_of(run));
  return exit_code_of(run);
}

}  // namespace

command_action add_train_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand("train", "Training throughput on libtorch: mlp, gpt (presets small .. 13b), lora");
  auto a = std::make_shared<train_arguments>();
  auto& r = a->request;
  auto& s = r.settings;
  command->add_option("workload", r.workload, "mlp, gpt or lora")->required();
  command->add_option("--model", r.model, "GPT preset: small, medium, large, xl, 1.5b, 3b, 7b, 13b, or custom")
      ->capture_default_str();
  command->add_option("--layers", r.layers, "Override: transformer blocks");
  command->add_option("--heads", r.heads, "Override: attention heads");
  command->add_option("--d-model", r.d_model, "Override: residual width");
  command->add_option("--d-ff", r.d_ff, "Override: MLP inner width");
  command->add_option("--seq-len", r.seq_len, "Override: tokens per sequence");
  command->add_option("--vocab", r.vocabulary, "Override: vocabulary size (50257)");
  command->add_option("--widths", r.widths, "mlp: layer widths")->capture_default_str();
  command->add_option("--batch", r.batch, "Per-device batch sizes to sweep, e.g. 1,16,64,128")->capture_default_str();
  command->add_option("--grad-accum", s.grad_accum, "Micro-batches per optimizer step")->capture_default_str();
  command->add_option("--steps", s.steps, "Timed optimizer steps")->capture_default_str();
  command->add_option("--warmup-steps", s.warmup_steps, "Untimed steps first")->capture_default_str();
  command->add_option("--dtype", r.dtype, "fp32, bf16 or fp16 (autocast); auto = bf16 on GPUs, fp32 on CPUs")
      ->capture_default_str();
  command->add_flag("--checkpoint-activations", s.activation_checkpointing, "Recompute block activations in backward");
  command->add_flag("--no-fused-optimizer", a->no_fused, "Use torch::optim::AdamW even where a fused kernel exists");
  command->add_option("--lr", s.lr, "AdamW learning rate")->capture_default_str();
  command->add_option("--weight-decay", s.weight_decay, "AdamW weight decay")->capture_default_str();
  command->add_option("--seed", s.seed, "Model initialisation and synthetic data")->capture_default_str();
  command->add_option("--data-batches", s.data_batches, "Distinct synthetic micro-batches, cycled")
      ->capture_default_str();
  command->add_option("--lora-rank", r.lora_rank, "lora: adapter rank r")->capture_default_str();
  command->add_option("--lora-alpha", r.lora_alpha, "lora: scale alpha (adapters add alpha/r B A x)")
      ->capture_default_str();
  command->add_option("--lora-targets", r.lora_targets, "lora: qkv, proj, fc1, fc2 or all")->capture_default_str();
  command->add_option("--scaling", r.scaling,
                      "Data-parallel rank counts to sweep, e.g. 1,2,4,8 (run under mpirun with the largest)");
  command->add_option("--bucket-mb", s.bucket_megabytes, "Gradient bucket size for data parallelism (MB)")
      ->capture_default_str();
  command->add_option("--device", r.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  command->add_option("--threads", r.threads, "CPU threads per rank (default: cores / ranks on the node)");
  command->add_option("--telemetry-interval-ms", a->telemetry_interval_ms, "GPU telemetry sampling period")
      ->capture_default_str();
  add_timeout_option(*command, r.timeout);
  add_rank_fault_option(*command, r.inject_fault);
  add_quiet_flag(*command, a->quiet, "No per-step lines");
  add_output_options(*command, a->outputs);
  return [a, &call] { return execute(*a, call); };
}

}  // namespace ironbench::cli
