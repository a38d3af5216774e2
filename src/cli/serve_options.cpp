#include "cli/serve_options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "serve/client/url_credentials.hpp"
#include "serve/measures/latency_metrics.hpp"
#include "serve/metrics/metrics_targets.hpp"
#include "serve/workload/dataset_table.hpp"
#include "serve/workload/endpoint_kinds.hpp"

namespace ironbench::cli {

namespace {

// The server, the endpoint and the kind of request, the model, LoRA adapters, tokenizer and chat
// template.
void add_serve_target_options(CLI::App& c, serve_arguments& a) {
  auto& s = a.sweep;
  c.add_option("--base-url", a.base_urls,
               "Server URL, e.g. http://127.0.0.1:8000 (repeat, or separate with commas, for replicas)")
      ->delimiter(',');
  c.add_option("--host", a.host, "Server host (without --base-url)")->capture_default_str();
  c.add_option("--port", a.port, "Server port (without --base-url)")->capture_default_str();
  c.add_option("--endpoint", s.load.endpoint,
               "/v1/completions, /v1/chat/completions, /v1/embeddings, /v1/rerank or /score (a path of --backend's "
               "table; another path is read as chat when it holds 'chat', else as completions)")
      ->capture_default_str();
  c.add_option("--backend", a.backend, serve::backend_help())->capture_default_str();
  c.add_option("--inputs-per-request", a.inputs_per_request,
               "Embeddings: texts per request; rerank, score: documents per query (a list sweeps: 1,8,32)")
      ->capture_default_str();
  c.add_option("--rerank-query-len", s.pooling.query_len, "Words of the query of rerank and score requests")
      ->capture_default_str();
  c.add_option("--images-per-request", s.images.per_request,
               "Chat: synthetic images (noise, unique per image) sent beside each prompt's text as data URLs")
      ->capture_default_str();
  c.add_option("--image-size", a.image_size, "Size of the synthetic images, WIDTHxHEIGHT (e.g. 512x512)");
  c.add_option("--image-format", s.images.format, "png or jpeg (jpeg where built with libjpeg)")->capture_default_str();
  s.body.model = "ironbench-sim";
  c.add_option("--model", s.body.model, "Model name sent in every request")->capture_default_str();
  c.add_option("--lora-modules", a.lora_modules,
               "LoRA adapters served by name: each request names one as its model, in turns (a,b,c) or drawn with "
               "weights from --seed (a:3,b:1); each point reports every adapter's metrics");
  c.add_flag("--no-adapter-check{false}", s.check_adapters,
             "Send --lora-modules adapters the server's GET /v1/models does not list (one it loads on demand)");
  c.add_option("--lora-by", a.lora_by,
               "How a request names its --lora-modules adapter: model (its model name: vLLM, SGLang), lora-field "
               "(llama.cpp's \"lora\": [{\"id\": N, \"scale\": 1}], the id from GET /lora-adapters; an adapter is "
               "named by id, path or file name) or auto (lora-field when the server answers GET /lora-adapters)")
      ->capture_default_str();
  c.add_option("--tokenizer", s.tokenizer, "A Hugging Face tokenizer.json (or its directory): counts output tokens");
  c.add_option("--chat-template", s.chat_template,
               "Chat prompts are counted through this chat template (auto: the tokenizer's "
               "chat_template.jinja or tokenizer_config.json; none; or a file)")
      ->capture_default_str();
}

// The prompts: the dataset and its lengths, conversations, traces.
void add_serve_dataset_options(CLI::App& c, serve_arguments& a) {
  auto& s = a.sweep;
  auto& d = s.datasets;
  c.add_option("--dataset-name", s.dataset_name, serve::dataset_name_help())->capture_default_str();
  c.add_option("--dataset-path", s.dataset_path, "File of the custom dataset");
  c.add_option("--random-input-len", d.random.input_len, "Prompt tokens (random dataset)")->capture_default_str();
  c.add_option("--random-output-len", d.random.output_len, "Output tokens (max_tokens)")->capture_default_str();
  c.add_option("--random-range-ratio", d.random.range_ratio, "Lengths vary uniformly by this ratio")
      ->capture_default_str();
  c.add_option("--random-prefix-len", d.random.prefix_len, "Tokens of a prefix shared by every prompt")
      ->capture_default_str();
  c.add_option("--custom-output-len", d.custom_output_len, "max_tokens of custom prompts")->capture_default_str();
  c.add_option("--prefix-repetition-prefix-len", d.prefix_repetition.prefix_len, "Tokens of each shared prefix")
      ->capture_default_str();
  c.add_option("--prefix-repetition-suffix-len", d.prefix_repetition.suffix_len, "Random tokens after the prefix")
      ->capture_default_str();
  c.add_option("--prefix-repetition-num-prefixes", d.prefix_repetition.num_prefixes, "Distinct prefixes")
      ->capture_default_str();
  c.add_option("--prefix-repetition-output-len", d.prefix_repetition.output_len, "max_tokens")->capture_default_str();
  c.add_option("--sharegpt-output-len", d.sharegpt_output_len,
               "max_tokens of ShareGPT prompts (0: the reference reply's length)");
  c.add_flag("--multi-turn", d.multi_turn,
             "sharegpt: send whole conversations, each turn with the history and the server's answers");
  c.add_option("--conversation-turns", d.conversation.turns, "Turns per conversation (conversation dataset)")
      ->capture_default_str();
  c.add_option("--conversation-user-len", d.conversation.user_len, "Words per user turn (conversation dataset)")
      ->capture_default_str();
  c.add_option("--conversation-output-len", d.conversation.output_len, "max_tokens per answer (conversation dataset)")
      ->capture_default_str();
  c.add_option("--think-time", d.conversation.think_s,
               "Seconds between an answer and the conversation's next turn (conversation, --multi-turn)")
      ->capture_default_str();
  c.add_option("--trace-speed", s.load.trace_speed, "Replay a trace this many times faster (0.5: slower)")
      ->capture_default_str();
  c.add_option("--trace-block-size", d.trace.block_size, "Tokens per hash id of a Mooncake trace")
      ->capture_default_str();
}

// The load of each point: how many requests, concurrency, rate, duration, ramp-up, streaming.
void add_serve_load_options(CLI::App& c, serve_arguments& a) {
  auto& s = a.sweep;
  c.add_option("--num-prompts", s.num_prompts,
               "Requests per point (a trace: its first N entries); with --search, the most a probe sends; with "
               "--duration, the most a point sends")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.num_prompts_given = true; });
  c.add_option("--num-prompts-per-concurrency", s.num_prompts_per_concurrency,
               "Requests per point = this x max concurrency");
  c.add_option("--max-concurrency", a.max_concurrency, "Requests in flight at most; a list sweeps (4,8,16,...)");
  c.add_option("--request-rate", a.request_rate, "Requests per second (inf: all at once); a list sweeps")
      ->capture_default_str();
  c.add_option("--burstiness", s.load.burstiness, "Gamma shape of the gaps (1: Poisson)")->capture_default_str();
  c.add_option("--duration", a.duration,
               "Bound each point by time (e.g. 60s, 5m, at most 7 days): requests are sent for this long (at "
               "--request-rate, or as --max-concurrency frees slots) and their count is an outcome; --num-prompts "
               "still caps it (whichever comes first ends the sending)");
  c.add_option("--grace-period", a.grace_period,
               "With --duration: how long requests in flight at its end are waited for (default 30s; 0: none); "
               "those still running then are cancelled and counted as unfinished, not in the metrics");
  c.add_option("--ramp-up-strategy", a.ramp_up_strategy,
               "Raise the request rate over each point, linear or exponential, from --ramp-up-start-rps to "
               "--ramp-up-end-rps (instead of --request-rate): by request, as vLLM does, or by time with --duration");
  c.add_option("--ramp-up-start-rps", a.ramp_up_start_rps, "The ramp-up's first rate (requests/s, positive)");
  c.add_option("--ramp-up-end-rps", a.ramp_up_end_rps, "The ramp-up's last rate (requests/s, at least the start)");
  c.add_flag("--ignore-eos", s.body.ignore_eos, "Ask the server to ignore end-of-sequence");
  c.add_flag("--no-stream", a.no_stream, "Non-streaming requests (TTFT = E2EL)");
}

// Which metrics and percentiles are reported, goodput SLOs, GPUs and interactivity.
void add_serve_metric_options(CLI::App& c, serve_arguments& a) {
  auto& s = a.sweep;
  c.add_option("--percentile-metrics", a.percentile_metrics,
               "Metrics with percentiles: " + serve::latency_metric_names(serve::metric_use::any, ","))
      ->capture_default_str();
  c.add_option("--metric-percentiles", a.metric_percentiles, "Percentiles, e.g. 50,90,99")->capture_default_str();
  c.add_option("--goodput", a.goodput, "SLOs: " + serve::latency_metric_names(serve::metric_use::goodput, " ", ":MS"));
  c.add_option("--gpus", s.gpus, "GPUs behind the endpoint(s): adds output tok/s per GPU (recorded in the settings)");
  c.add_option("--at-interactivity", s.at_interactivity,
               "Throughput at this many tok/s per user, interpolated on the sweep's Pareto frontier");
}

// How each point runs and is kept: seeds, warm-ups, result files, headers, timeouts, limits,
// progress.
void add_serve_run_options(CLI::App& c, serve_arguments& a) {
  auto& s = a.sweep;
  c.add_option("--seed", s.load.seed,
               "Seed of the first point's prompts and arrivals (each later point draws its own from it; each "
               "point's is its result's prompt_seed: --seed of it sends that point's prompts again)")
      ->capture_default_str();
  c.add_flag("--reuse-prompts", s.reuse_prompts,
             "Send every point of a sweep the same prompts (by default each point gets its own, from the same "
             "distribution, so that a server's prefix cache cannot serve a later point from an earlier one's)");
  c.add_option("--num-warmups", s.num_warmups, "Requests sent first and not measured")->capture_default_str();
  c.add_flag("--save-result", s.save.save_result, "Write vLLM's result JSON to --result-dir");
  c.add_flag("--save-detailed", s.save.save_detailed, "Also per-request arrays and a .requests.jsonl file");
  c.add_option("--result-dir", s.save.result_dir, "Directory of --save-result files")->capture_default_str();
  c.add_option("--result-filename", s.save.result_filename, "File name of a single point's result");
  c.add_option("--header", s.load.headers,
               "Extra HTTP header 'Name: value' (repeatable; not written to results). An Authorization header "
               "here is the one sent: it wins over a password in --base-url and over --api-key-env's key");
  c.add_option("--extra-body", a.extra_body, "JSON object merged into every request body");
  c.add_option("--check-outputs", s.check_outputs,
               "Compare each greedy completion (--extra-body '{\"temperature\": 0}') with this earlier result file's "
               "(--save-result --save-detailed) for the same prompt: share identical, first differing token");
  c.add_option("--api-key-env", s.api_key_env,
               "Environment variable holding the API key (never written; not sent when --header or --base-url "
               "gives a credential)")
      ->capture_default_str();
  c.add_option("--balance", a.balance, "Across several --base-url: round-robin or least-outstanding")
      ->capture_default_str();
  add_timeout_option(c, a.timeout, "Per-request time limit");
  c.add_option("--stall-timeout", a.stall_timeout, "Fail a request that receives nothing for this long")
      ->capture_default_str();
  c.add_option("--max-response-bytes", a.max_response_bytes,
               "A response larger than this fails as 'oversized' and its connection is dropped (e.g. 64M; 0: no "
               "limit)")
      ->capture_default_str();
  c.add_option("--max-kept-text-bytes", a.max_kept_text_bytes,
               "--save-detailed: the most generated text kept for a point's result file (e.g. 256M; 0: no limit); "
               "past it a request's text is not kept (generated_texts_not_kept counts them)")
      ->capture_default_str();
  c.add_option("--progress-interval", a.progress_interval,
               "A progress line this often during each point (default 1s on a terminal, 10s otherwise; 0: none)");
}

}  // namespace

void add_options(CLI::App& c, serve_arguments& a) {
  add_serve_target_options(c, a);
  add_serve_dataset_options(c, a);
  add_serve_load_options(c, a);
  add_serve_metric_options(c, a);
  add_serve_run_options(c, a);
  add_judging_options(c, a);
  add_output_options(c, a.outputs);
}

}  // namespace ironbench::cli
