// `ironbench serve-sim`: an OpenAI-compatible HTTP server (/v1/completions,
// /v1/chat/completions with text and image parts (sim_images.hpp), /v1/embeddings, /v1/rerank
// and /rerank, /score (sim_pooling.hpp), /v1/models, /health, and Prometheus /metrics under vLLM's names with
// the engine's true state) whose "engine" is the simulation in
// sim_engine.hpp. It streams SSE like vLLM (stream_options.include_usage, [DONE]) and can
// inject faults for testing clients. Every token event carries "ironbench_sim_sent_ns", the
// moment it was sent on the host's monotonic clock, so a client on the same host can measure
// its own timing error against ground truth. One thread, one event loop (libevent), thousands of
// concurrent streams.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "serve/sim/sim_adapters.hpp"
#include "serve/sim/sim_engine.hpp"
#include "serve/sim/sim_metrics.hpp"
#include "serve/sim/sim_prefix_cache.hpp"
#include "serve/sim/sim_reasoning.hpp"

namespace ironbench::serve {

/// Faults injected into every `every`-th request (1-based), for testing clients: a broken
/// server (HTTP errors, cut or stalled streams) and a hostile one (bytes and numbers no honest
/// server sends).
enum class sim_fault {
  none,
  http_429,
  http_500,
  truncate,
  end_early,
  malformed,
  stall,
  invalid_utf8,
  huge_chunk,
  usage_negative,
  usage_huge,
  html_200,
  wrong_output
};

/// One row of the fault table: the fault, its --fault name and what it does.
struct sim_fault_entry {
  sim_fault fault;
  const char* name;
  const char* effect;
};

/// The table, "none" first: --fault's names, help and parsing come from it.
[[nodiscard]] const std::vector<sim_fault_entry>& sim_faults();

[[nodiscard]] const char* to_string(sim_fault fault);
/// The fault named `name` in the table; usage_error listing every name otherwise.
[[nodiscard]] sim_fault sim_fault_from_string(const std::string& name);
/// --fault's help: every fault with its effect.
[[nodiscard]] std::string sim_fault_help();

struct sim_server_settings {
  std::string host = "127.0.0.1";
  int port = 8000;  ///< 0: any free port (the one chosen is announced)
  std::string model = "ironbench-sim";
  sim_settings engine;
  sim_fault fault = sim_fault::none;
  int fault_every = 0;
  /// huge-chunk: the bytes of text in the faulty request's second token event.
  std::int64_t fault_bytes = 50'000'000;
  /// wrong-output: the output token (0: the first) whose text the fault changes.
  std::int64_t fault_token = 1;
  /// Hand every token event to the kernel as it is stamped (exact ground truth). false: leave
  /// the events to libevent's loop, which writes each connection's after the step: more
  /// throughput at 10,000 streams, and the stamps then include the wait in libevent's queue.
  bool write_each_event = true;
  /// When not empty: one JSON line per request, written as it ends, with its arrival, first
  /// token and end times (CLOCK_MONOTONIC ns) and how it ended, so that any client's send
  /// schedule can be checked from the server's side.
  std::string request_log;
  /// When not empty: one JSON line each time the engine's state changes (a request queued,
  /// admitted, finished or cancelled): {"t_ns", "running", "waiting", "kv_used", "kv_total"},
  /// CLOCK_MONOTONIC ns: the ground truth of what /metrics reports.
  std::string state_log;
  /// A request body larger than this is refused with HTTP 413 before it is read (0: no limit).
  std::int64_t max_body_bytes = 32 * 1024 * 1024;
  /// A connection that has sent nothing and been sent nothing for this long is closed
  /// (seconds; 0: never). A request being answered keeps its connection whatever the time:
  /// only connections between requests, or sending a request slowly, are idle.
  double idle_timeout_s = 60;
  /// The length of the vectors /v1/embeddings answers with (sim_pooling.hpp).
  int embedding_dimension = 256;
  /// A stand-in GPU telemetry exporter on GET /gpu-metrics (kind "": none).
  sim_gpu_exporter gpu_exporter;
  /// Reasoning output: the first tokens of every response are reasoning (sim_reasoning.hpp).
  sim_reasoning_settings reasoning;
  /// LoRA adapters served by name beside `model` (sim_adapters.hpp); their step costs go to
  /// engine.adapter_step_cost_ms. A request naming another model gets vLLM's HTTP 404.
  std::vector<sim_adapter> adapters;
  /// The prefix cache (sim_prefix_cache.hpp; window 0: none). Completions and chat prompts
  /// are looked up on arrival; their cached tokens are not prefilled, /metrics counts them in
  /// vllm:prefix_cache_hits_total and --request-log gives each request's "cached_tokens".
  sim_prefix_cache_settings prefix_cache;
};

/// Serves until `stop` becomes true (checked every 50 ms). `on_listening` gets the bound port
/// once the socket listens. Throws ironbench::error when the address cannot be bound.
/// A request body of the wrong shape (sim_request.hpp) is answered with HTTP 400 naming the
/// field, one over max_body_bytes with 413. When accept() fails for want of file descriptors
/// (EMFILE, ENFILE) or memory, new connections wait: accepting pauses for 100 ms at a time and
/// one line goes to stderr for each such shortage (not one per attempt).
void run_sim_server(const sim_server_settings& settings, const std::atomic<bool>& stop,
                    const std::function<void(int port)>& on_listening);

/// The number of prompt tokens serve-sim charges for a request body: the length of a token-id
/// prompt, else the whitespace-separated words of the prompt or of the chat messages' contents.
[[nodiscard]] std::int64_t sim_prompt_tokens(const std::string& body_json);

}  // namespace ironbench::serve
