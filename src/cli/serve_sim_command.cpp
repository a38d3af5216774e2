// ironbench serve-sim: the simulated OpenAI-compatible engine (for tests, client calibration
// and demos), until Ctrl-C.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "serve/sim/sim_server.hpp"

namespace ironbench::cli {
namespace {

struct sim_arguments {
  serve::sim_server_settings settings;
  std::string fault = "none";
  std::string fault_bytes = "50000000";
  std::string max_body_bytes = "32M";
  std::string idle_timeout = "60s";
  std::string prefix_cache_window = "0";
  bool batch_writes = false;
  std::string lora_modules, lora_step_cost_ms = "0";
  std::string reasoning_style = "reasoning_content";
};

int execute(const sim_arguments& a) {
  auto settings = a.settings;
  settings.fault = serve::sim_fault_from_string(a.fault);
  settings.fault_bytes = parse_size(a.fault_bytes, "--fault-bytes");
  if (settings.fault_bytes < 1) throw usage_error("--fault-bytes must be at least 1");
  settings.write_each_event = !a.batch_writes;
  settings.max_body_bytes = parse_size(a.max_body_bytes, "--max-body-bytes");
  settings.idle_timeout_s = parse_duration_s(a.idle_timeout, "--idle-timeout");
  settings.prefix_cache.window_s = parse_duration_s(a.prefix_cache_window, "--prefix-cache-window");
  if (settings.prefix_cache.block_tokens < 1) throw usage_error("--prefix-cache-block must be at least 1");
  const auto& e = settings.engine;
  if (!(e.prefill_tokens_per_s > 0) || e.decode_base_ms < 0 || e.decode_per_seq_ms < 0 || e.max_num_seqs < 1 ||
      e.kv_cache_tokens < 2 || e.jitter < 0) {
    throw usage_error("serve-sim: rates and times must be positive, --max-num-seqs >= 1, --jitter >= 0");
  }
  settings.reasoning.style = serve::sim_reasoning_style_from_string(a.reasoning_style);
  if (settings.reasoning.tokens < 0) throw usage_error("--reasoning-tokens must not be negative");
  settings.adapters = serve::parse_sim_adapters(a.lora_modules, a.lora_step_cost_ms, settings.model);
  settings.engine.adapter_step_cost_ms.clear();
  for (const auto& adapter : settings.adapters) settings.engine.adapter_step_cost_ms.push_back(adapter.step_cost_ms);
  const auto& g = settings.gpu_exporter;
  if (!g.kind.empty() && g.kind != "dcgm" && g.kind != "amd") {
    throw usage_error(fmt::format("--gpu-exporter takes dcgm or amd, not '{}'", g.kind));
  }
  if (g.gpus < 1 || !(g.power_w >= 0) || !(g.stop_after_s >= 0)) {
    throw usage_error("--gpu-exporter-gpus must be at least 1, --gpu-power-w and --gpu-exporter-stop-after >= 0");
  }
  if (settings.fault != serve::sim_fault::none && settings.fault_every < 1) {
    throw usage_error("--fault needs --fault-every N (every N-th request gets it)");
  }
  const auto& stop = install_interrupt_flag();
  serve::run_sim_server(settings, stop, [&](int port) {
    std::cout << fmt::format(
                     "serve-sim: a simulated inference engine (not a model) at http://{}:{}/v1 (model '{}'; "
                     "prefill {} tokens/s, decode step {} ms + {} ms per sequence, {} sequences, KV cache {} tokens, "
                     "jitter {}{}{})",
                     settings.host, port, settings.model, e.prefill_tokens_per_s, e.decode_base_ms, e.decode_per_seq_ms,
                     e.max_num_seqs, e.kv_cache_tokens, e.jitter,
                     settings.prefix_cache.window_s > 0
                         ? fmt::format(", prefix cache {:g} s in blocks of {} tokens", settings.prefix_cache.window_s,
                                       settings.prefix_cache.block_tokens)
                         : std::string(),
                     settings.fault == serve::sim_fault::none
                         ? std::string()
                         : fmt::format("; fault {} every {} requests", serve::to_string(settings.fault),
                                       settings.fault_every))
              << std::endl;
  });
  return exit_ok;
}

}  // namespace

command_action add_serve_sim_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "serve-sim", "Serve a simulated OpenAI-compatible inference engine (for tests and client calibration)");
  auto a = std::make_shared<sim_arguments>();
  auto& s = a->settings;
  command->add_option("--host", s.host, "Address to listen on")->capture_default_str();
  command->add_option("--port", s.port, "Port (0: any free port, announced on stdout)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  command->add_option("--model", s.model, "Model name it answers to")->capture_default_str();
  command->add_option("--prefill-tokens-per-s", s.engine.prefill_tokens_per_s, "Prompt tokens prefilled per second")
      ->capture_default_str();
  command->add_option("--decode-base-ms", s.engine.decode_base_ms, "Engine step time with no sequence")
      ->capture_default_str();
  command->add_option("--decode-per-seq-ms", s.engine.decode_per_seq_ms, "Step time added per running sequence")
      ->capture_default_str();
  command->add_option("--max-num-seqs", s.engine.max_num_seqs, "Sequences decoded together at most")
      ->capture_default_str();
  command
      ->add_option("--kv-cache-tokens", s.engine.kv_cache_tokens,
                   "Prompt + output tokens held at once (requests queue beyond)")
      ->capture_default_str();
  command
      ->add_option("--jitter", s.engine.jitter, "Relative standard deviation of step times (0: exact, deterministic)")
      ->capture_default_str();
  command->add_option("--seed", s.engine.seed, "Seed of the jitter")->capture_default_str();
  command->add_option("--fault", a->fault, "Inject a fault: " + serve::sim_fault_help())->capture_default_str();
  command->add_option("--fault-every", s.fault_every, "Every N-th request gets the fault")->capture_default_str();
  command->add_option("--fault-token", s.fault_token, "wrong-output: the output token it changes (0: the first)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command->add_option("--fault-bytes", a->fault_bytes, "Bytes of the huge-chunk fault's text (e.g. 50000000, 64M)")
      ->capture_default_str();
  command
      ->add_option("--max-body-bytes", a->max_body_bytes,
                   "Refuse a request body larger than this with HTTP 413 (e.g. 32M; 0: no limit)")
      ->capture_default_str();
  command
      ->add_option("--idle-timeout", a->idle_timeout,
                   "Close a connection that sends nothing for this long between requests (0: never; a request "
                   "being answered is never idle)")
      ->capture_default_str();
  command
      ->add_option("--embedding-dim", s.embedding_dimension,
                   "Length of the vectors /v1/embeddings answers with (deterministic from each text's hash)")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));
  command->add_option(
      "--request-log", s.request_log,
      "Write one JSON line per request (arrival, first token and end, CLOCK_MONOTONIC ns) to this file");
  command->add_option("--state-log", s.state_log,
                      "Write one JSON line per change of the engine's state (running, waiting, KV cache in use; "
                      "CLOCK_MONOTONIC ns) to this file: the truth behind /metrics");
  command
      ->add_option("--gpu-exporter", s.gpu_exporter.kind,
                   "Also serve a stand-in GPU telemetry exporter on /gpu-metrics: dcgm (NVIDIA DCGM exporter's names) "
                   "or amd (AMD device metrics exporter's), at a constant --gpu-power-w with an energy counter")
      ->capture_default_str();
  command->add_option("--gpu-power-w", s.gpu_exporter.power_w, "Power of each stand-in GPU (W)")->capture_default_str();
  command->add_option("--gpu-exporter-gpus", s.gpu_exporter.gpus, "GPUs the stand-in exporter reports")
      ->capture_default_str();
  command
      ->add_option("--gpu-exporter-stop-after", s.gpu_exporter.stop_after_s,
                   "The stand-in exporter answers HTTP 503 from this many seconds after the first completion request "
                   "(0: never)")
      ->capture_default_str();
  command
      ->add_option("--reasoning-tokens", s.reasoning.tokens,
                   "The first N output tokens of every response are reasoning (all of them when max_tokens is "
                   "smaller); 0: none")
      ->capture_default_str();
  command
      ->add_option("--reasoning-style", a->reasoning_style,
                   "How chat streams carry the reasoning: reasoning_content (vLLM's parsers), reasoning (newer vLLM, "
                   "OpenRouter) or think-tags (<think>...</think> in the content, as tokens 0 and N-1; "
                   "/v1/completions always uses the tags)")
      ->capture_default_str();
  command->add_flag("--report-reasoning-tokens", s.reasoning.report_tokens,
                    "Add usage.completion_tokens_details.reasoning_tokens (as OpenAI and OpenRouter report it)");
  command->add_option("--lora-modules", a->lora_modules,
                      "LoRA adapters served by name beside --model (a,b,c); a request naming another model gets "
                      "vLLM's HTTP 404");
  command
      ->add_option("--lora-step-cost-ms", a->lora_step_cost_ms,
                   "Step time each adapter adds when one of its sequences runs: one cost, or one per adapter (1,2,4)")
      ->capture_default_str();
  command
      ->add_option("--prefix-cache-window", a->prefix_cache_window,
                   "Prefix cache: prompt blocks seen within this long before (e.g. 60s) are not prefilled again and "
                   "count as vllm:prefix_cache_hits (0: no cache)")
      ->capture_default_str();
  command->add_option("--prefix-cache-block", s.prefix_cache.block_tokens, "Prefix cache: tokens per block")
      ->capture_default_str();
  command->add_flag("--batch-writes", a->batch_writes,
                    "Leave token events to the event loop's writes after each step (more throughput at "
                    "10,000 streams; the ground-truth stamps then include that wait)");
  return [a] { return execute(*a); };
}

}  // namespace ironbench::cli
