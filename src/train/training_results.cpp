#include "train/training_results.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "core/statistics.hpp"
#include "report/text_table.hpp"

namespace ironbench::train {

namespace {

std::string widths_text(const std::vector<std::int64_t>& widths) {
  std::string text;
  for (const auto w : widths) text += (text.empty() ? "" : "-") + std::to_string(w);
  return text;
}

std::string benchmark_name(const training_case_context& c) {
  if (c.scaling_sweep) return "ddp_scaling";
  return std::string("train_") + to_string(c.settings.kind);
}

void set_params(core::case_result& c, const training_case_context& context, int ranks) {
  const auto& s = context.settings;
  const bool gpu = context.device.kind != core::device_kind::cpu;
  if (s.kind == workload::mlp) {
    c.params.set("widths", widths_text(s.mlp_widths));
    c.params.set("activation", std::string("relu"));
  } else {
    c.params.set("model", s.shape.name);
    c.params.set("layers", s.shape.layers);
    c.params.set("heads", s.shape.heads);
    c.params.set("d_model", s.shape.d_model);
    c.params.set("d_ff", s.shape.d_ff);
  }
  c.params.set("batch", s.batch);
  if (s.kind != workload::mlp) c.params.set("seq_len", s.shape.seq_len);
  if (s.kind == workload::lora) {
    c.params.set("lora_r", s.lora.rank);
    c.params.set("lora_alpha", s.lora.alpha);
    c.params.set("lora_targets", s.lora.targets_text());
  }
  c.params.set("dtype", s.dtype);
  if (s.grad_accum > 1) c.params.set("grad_accum", std::int64_t{s.grad_accum});
  if (s.activation_checkpointing) c.params.set("activation_checkpointing", std::string("on"));
  if (ranks > 1 || context.scaling_sweep) {
    c.params.set(gpu ? "gpus" : "ranks", std::int64_t{ranks});
    c.params.set("global_batch", s.batch * s.grad_accum * ranks);
    c.params.set("parallelism", std::string(ranks > 1 ? "ddp" : "none"));
  }
}

}  // namespace

std::pair<double, std::string> dense_peak(const core::device_info& device, const std::string& dtype) {
  const auto& p = device.properties;
  if (p.is_object() && p.contains("peak_flops") && p.at("peak_flops").contains(dtype)) {
    const auto& entry = p.at("peak_flops").at(dtype);
    if (entry.contains("flops_per_second") && entry.at("flops_per_second").is_number()) {
      return {entry.at("flops_per_second").get<double>(), entry.value("source", std::string("device fingerprint"))};
    }
    return {0, entry.value("source", std::string("no peak known for " + dtype))};
  }
  return {0, fmt::format("no {} peak known for {}", dtype, device.name.empty() ? device.id : device.name)};
}

bool loss_fell(const std::vector<step_record>& steps, std::string& why_not) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!std::isfinite(steps[i].loss)) {
      why_not = fmt::format("the loss is not finite at step {}", i + 1);
      return false;
    }
  }
  if (steps.size() < 2) {
    why_not = "fewer than two steps: the loss cannot be seen to fall";
    return false;
  }
  const std::size_t window = std::min<std::size_t>(3, steps.size() / 2);
  double first = 0, last = 0;
  for (std::size_t i = 0; i < window; ++i) {
    first += steps[i].loss / static_cast<double>(window);
    last += steps[steps.size() - 1 - i].loss / static_cast<double>(window);
  }
  if (last < first) return true;
  why_not = fmt::format("the loss did not fall (mean of the first {} steps {:.4f}, of the last {} {:.4f})", window,
                        first, window, last);
  return false;
}

namespace {

// The rates of `timed_steps` steps that took `total_s` on `ranks` ranks (the median step's
// time from c.timing): tokens, samples, model FLOPs and MFU, in all and per device.
void add_rate_metrics(core::case_result& c, const training_case_context& context, std::size_t timed_steps,
                      double total_s, int ranks) {
  const auto& s = context.settings;
  const double samples_per_step = static_cast<double>(s.samples_per_step_per_device() * ranks);
  const double tokens_per_step = samples_per_step * static_cast<double>(s.tokens_per_sample());
  const double flops_per_step = samples_per_step * s.flops_per_sample();
  c.work.flops = flops_per_step;
  const double steps_done = static_cast<double>(timed_steps);
  const double samples_per_s = samples_per_step * steps_done / total_s;
  const double tokens_per_s = tokens_per_step * steps_done / total_s;
  const double flops_per_s = flops_per_step * steps_done / total_s;
  const bool gpu = context.device.kind != core::device_kind::cpu;
  const std::string per = gpu ? "per_gpu" : "per_device";
  if (s.kind != workload::mlp) {
    c.metrics.push_back({"tokens_per_s", tokens_per_s, "tokens/s", "global batch tokens x timed steps / their time"});
    c.metrics.push_back({"tokens_per_s_" + per, tokens_per_s / ranks, "tokens/s", "tokens_per_s / ranks"});
  }
  c.metrics.push_back({"samples_per_s", samples_per_s, "samples/s", "sequences (rows for mlp) per second"});
  c.metrics.push_back({"step_time_ms", c.timing->time_s.median * 1e3, "ms", "one optimizer step, median"});
  c.metrics.push_back({"total_time_s", total_s, "s", "the timed steps"});
  c.metrics.push_back({"tflops", flops_per_s / 1e12, "TFLOP/s", "model FLOPs (docs/metrics.md) per second, all ranks"});
  c.metrics.push_back({"tflops_" + per, flops_per_s / 1e12 / ranks, "TFLOP/s", "tflops / ranks"});
  const auto [peak, peak_source] = dense_peak(context.device, s.dtype);
  if (peak > 0) {
    c.metrics.push_back({"mfu_percent", 100 * flops_per_s / ranks / peak, "%",
                         fmt::format("model FLOP/s per device / dense {} peak", s.dtype)});
    c.notes["mfu_peak"] = fmt::format("{} dense peak {:.3f} TFLOP/s ({})", s.dtype, peak / 1e12, peak_source);
  } else {
    c.notes["mfu_peak"] = fmt::format("no MFU: {}", peak_source);
  }
}

// Invalid, with the reasons, where the training did not do what it must: the loss falls (an
// interrupted run is not judged on it), LoRA leaves the frozen weights as they were, and data
// parallel ranks end with the same parameters.
void verify_training(core::case_result& c, const training_outcome& outcome) {
  std::vector<std::string> problems;
  std::string why;
  if (!outcome.interrupted && !loss_fell(outcome.steps, why)) problems.push_back(why);
  if (outcome.frozen_unchanged && !*outcome.frozen_unchanged) problems.push_back("frozen base weights changed");
  if (outcome.replicas_identical && !*outcome.replicas_identical) {
    problems.push_back("ranks ended with different parameters");
  }
  c.notes["verification"] = "loss falls; lora: frozen weights unchanged; data parallel: parameters equal on every rank";
  if (!problems.empty()) {
    c.status = core::case_status::invalid;
    for (const auto& p : problems) c.reason += (c.reason.empty() ? "" : "; ") + p;
  }
}

}  // namespace

core::case_result training_case(const training_case_context& context, const training_outcome& outcome, int ranks) {
  const auto& s = context.settings;
  core::case_result c;
  c.benchmark = benchmark_name(context);
  c.device = context.device.id;
  set_params(c, context, ranks);
  std::vector<double> losses, times_ms;
  for (const auto& step : outcome.steps) {
    losses.push_back(step.loss);
    times_ms.push_back(step.seconds * 1e3);
  }
  if (!losses.empty()) {
    c.series["loss"] = losses;
    c.series["step_time_ms"] = times_ms;
  }
  c.notes["warmup_steps"] = std::to_string(s.warmup_steps);
  c.notes["data"] =
      s.kind == workload::mlp
          ? fmt::format("N(0,1) inputs and targets, {} batches cycled, seed {}", s.data_batches, s.seed)
          : fmt::format("a random 4-successor Markov chain over the vocabulary, {} batches cycled, seed {}",
                        s.data_batches, s.seed);
  if (!outcome.libtorch.empty()) c.notes["libtorch"] = outcome.libtorch;
  if (!outcome.optimizer.empty()) c.notes["optimizer"] = outcome.optimizer;
  if (!outcome.attention.empty()) c.notes["attention"] = outcome.attention;
  if (outcome.gradient_buckets > 0) {
    c.notes["data_parallel"] = fmt::format("{} ranks, {} gradient buckets of <= {} MB all-reduced during backward",
                                           ranks, outcome.gradient_buckets, s.bucket_megabytes);
  }
  if (outcome.out_of_memory) {
    c.status = core::case_status::skipped;
    c.reason = fmt::format("out of memory at batch {} ({})", s.batch, outcome.out_of_memory_message);
    c.notes["outcome"] = "out_of_memory";
    return c;
  }
  const auto timed = outcome.timed();
  if (outcome.interrupted)
    c.notes["interrupted"] = fmt::format("after {} of {} steps", outcome.steps.size(), s.warmup_steps + s.steps);
  if (timed.empty()) {
    c.status = outcome.interrupted ? core::case_status::skipped : core::case_status::failed;
    c.reason = outcome.interrupted ? "interrupted before a timed step finished" : "no timed step finished";
    return c;
  }
  std::vector<double> seconds;
  double total_s = 0;
  for (const auto& step : timed) {
    seconds.push_back(step.seconds);
    total_s += step.seconds;
  }
  core::measurement m;
  m.samples_s = seconds;
  m.warmup_reps = static_cast<std::size_t>(outcome.warmup_steps);
  m.total_iterations = outcome.steps.size();
  m.stop = core::stop_reason::max_reps;
  m.time_s = core::summarize(seconds);
  c.timing = m;

  add_rate_metrics(c, context, timed.size(), total_s, ranks);
  if (outcome.gpu_memory) {
    c.metrics.push_back({"memory_per_gpu_gb", outcome.gpu_memory->peak_allocated_bytes / 1e9, "GB",
                         "peak memory allocated by tensors (caching allocator)"});
    c.metrics.push_back({"memory_reserved_per_gpu_gb", outcome.gpu_memory->peak_reserved_bytes / 1e9, "GB",
                         "peak memory reserved by the caching allocator"});
  }
  if (outcome.host_peak_rss_bytes > 0) {
    c.metrics.push_back(
        {"host_peak_rss_gb", outcome.host_peak_rss_bytes / 1e9, "GB", "peak resident memory of the rank-0 process"});
  }
  c.metrics.push_back({"parameters", static_cast<double>(outcome.parameters), "", "every parameter"});
  c.metrics.push_back({"trainable_parameters", static_cast<double>(outcome.trainable_parameters), "", ""});
  c.metrics.push_back({"loss_first", outcome.steps.front().loss, "", "loss at step 1 (warm-up included)"});
  c.metrics.push_back({"loss_last", outcome.steps.back().loss, "", "loss at the last step"});
  if (outcome.final_checksum) {
    c.notes["final_parameter_checksum"] =
        fmt::format("sum {:.17g} squares {:.17g}", outcome.final_checksum->first, outcome.final_checksum->second);
  }
  std::size_t skipped = 0;
  for (const auto& step : outcome.steps) skipped += step.skipped ? 1 : 0;
  if (skipped > 0) c.notes["fp16_skipped_steps"] = std::to_string(skipped);

  verify_training(c, outcome);
  return c;
}

void add_scaling_efficiency(std::vector<core::case_result>& cases) {
  const auto key = [](const core::case_result& c) {
    core::parameter_set params;
    for (const auto& [name, value] : c.params.entries()) {
      if (name != "gpus" && name != "ranks" && name != "global_batch" && name != "parallelism") params.set(name, value);
    }
    return c.benchmark + "|" + params.label();
  };
  const auto ranks_of = [](const core::case_result& c) -> std::int64_t {
    if (c.params.contains("gpus")) return c.params.integer("gpus");
    if (c.params.contains("ranks")) return c.params.integer("ranks");
    return 1;
  };
  const auto throughput = [](const core::case_result& c) -> double {
    if (const auto* m = c.find_metric("tokens_per_s")) return m->value;
    if (const auto* m = c.find_metric("samples_per_s")) return m->value;
    return 0;
  };
  std::map<std::string, double> single;
  for (const auto& c : cases) {
    if (ranks_of(c) == 1 && c.status == core::case_status::valid) single[key(c)] = throughput(c);
  }
  for (auto& c : cases) {
    const auto found = single.find(key(c));
    const double t = throughput(c);
    if (found == single.end() || t <= 0 || c.status == core::case_status::skipped) continue;
    const auto n = ranks_of(c);
    c.metrics.push_back({"scaling_efficiency", 100 * t / (static_cast<double>(n) * found->second), "%",
                         "throughput / (ranks x one-rank throughput), equal per-rank batch"});
  }
}

json training_settings_json(const train_settings& s, const std::string& device, int threads, int world_size,
                            const std::vector<std::int64_t>& batches, const std::vector<std::int64_t>& scaling) {
  json j{{"workload", to_string(s.kind)},
         {"device", device},
         {"dtype", s.dtype},
         {"batches", batches},
         {"grad_accum", s.grad_accum},
         {"steps", s.steps},
         {"warmup_steps", s.warmup_steps},
         {"activation_checkpointing", s.activation_checkpointing},
         {"fused_optimizer_requested", s.fused_optimizer},
         {"optimizer",
          {{"name", "AdamW"}, {"lr", s.lr}, {"betas", {0.9, 0.95}}, {"eps", 1e-8}, {"weight_decay", s.weight_decay}}},
         {"seed", s.seed},
         {"data_batches", s.data_batches},
         {"threads_per_rank", threads},
         {"world_size", world_size}};
  if (!scaling.empty()) j["scaling"] = scaling;
  if (world_size > 1) j["bucket_mb"] = s.bucket_megabytes;
  if (s.kind == workload::mlp) {
    j["widths"] = widths_text(s.mlp_widths);
  } else {
    j["model"] = {{"name", s.shape.name},       {"layers", s.shape.layers}, {"heads", s.shape.heads},
                  {"d_model", s.shape.d_model}, {"d_ff", s.shape.d_ff},     {"vocabulary", s.shape.vocabulary},
                  {"seq_len", s.shape.seq_len}};
  }
  if (s.kind == workload::lora) {
    j["lora"] = {{"rank", s.lora.rank}, {"alpha", s.lora.alpha}, {"targets", s.lora.targets_text()}};
  }
  return j;
}

void render_training_table(const core::run_result& run, std::ostream& out) {
  report::text_table table;
  for (const char* h : {"benchmark", "batch", "ranks", "dtype", "tokens/s", "samples/s", "ms/step", "TFLOP/s", "MFU %",
                        "memory GB", "loss first", "loss last", "status"}) {
    table.add_column(h);
  }
  const auto metric = [](const core::case_result& c, const std::string& name, const char* format) -> std::string {
    const auto* m = c.find_metric(name);
    return m == nullptr ? "-" : fmt::format(fmt::runtime(format), m->value);
  };
  for (const auto& c : run.cases) {
    std::string ranks = "1";
    if (c.params.contains("gpus")) ranks = std::to_string(c.params.integer("gpus"));
    if (c.params.contains("ranks")) ranks = std::to_string(c.params.integer("ranks"));
    std::string memory = metric(c, "memory_per_gpu_gb", "{:.2f}");
    if (memory == "-") memory = metric(c, "host_peak_rss_gb", "{:.2f}");
    table.add_row(
        {c.benchmark, std::to_string(c.params.integer("batch")), ranks,
         c.params.contains("dtype") ? c.params.string("dtype") : "-", metric(c, "tokens_per_s", "{:.0f}"),
         metric(c, "samples_per_s", "{:.1f}"), metric(c, "step_time_ms", "{:.2f}"), metric(c, "tflops", "{:.3f}"),
         metric(c, "mfu_percent", "{:.1f}"), memory, metric(c, "loss_first", "{:.3f}"),
         metric(c, "loss_last", "{:.3f}"),
         c.status == core::case_status::valid ? "ok" : std::string(core::to_string(c.status)) + ": " + c.reason});
  }
  table.render_text(out);
  std::set<std::string> peaks;
  for (const auto& c : run.cases) {
    if (const auto it = c.notes.find("mfu_peak"); it != c.notes.end()) peaks.insert(it->second);
  }
  for (const auto& peak : peaks) out << "MFU against: " << peak << '\n';
}

}  // namespace ironbench::train
