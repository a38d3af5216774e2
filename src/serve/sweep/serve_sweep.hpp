// A serving sweep: `ironbench serve`'s load points (every max concurrency x request rate)
// against OpenAI-compatible endpoints, measured as vLLM bench serve measures them, as cases
// of a run and vLLM result objects. No command-line types: a CLI or an experiment runner
// fills sweep_settings (with the parse_* helpers for text), checks it and runs it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "serve/client/client_ranks.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/measures/serving_metrics.hpp"
#include "serve/metrics/point_energy.hpp"
#include "serve/point/point_verdict.hpp"
#include "serve/point/vllm_result_file.hpp"
#include "serve/sweep/slo_search.hpp"
#include "serve/workload/dataset_table.hpp"
#include "serve/workload/datasets.hpp"
#include "serve/workload/lora_adapters.hpp"
#include "serve/workload/pooling_requests.hpp"
#include "serve/workload/synthetic_images.hpp"

namespace ironbench::serve {

struct output_reference;  // output_check.hpp

/// The highest-throughput point whose `statistic` of `metric` stays at most `max_ms` (off when max_ms is 0).
struct itl_limit {
  double max_ms = 0;
  std::string statistic = "median";  ///< median, mean, p99, ...
  std::string metric = "itl";        ///< itl (pooled gaps) or tpot (per request)
};

/// Scraping the servers' Prometheus /metrics during each point (serve/metrics/).
struct server_metrics_settings {
  bool enabled = true;
  std::vector<std::string> urls;  ///< empty: <base-url>/metrics of every endpoint
  double interval_s = 1;
  /// The role of each URL (--metrics-url prefill=URL; metrics_targets.hpp): empty or all ""
  /// for none. The TTFT breakdown (ttft_breakdown.hpp) is shown per role.
  std::vector<std::string> roles;
  /// --gpu-metrics-url: GPU telemetry exporters (DCGM, AMD) scraped every interval_s during
  /// each point, also with enabled false (remote_gpu_telemetry.hpp).
  std::vector<std::string> gpu_urls;
};

/// Everything a sweep needs. load.request_rate, load.max_concurrency and load.tokenizer are
/// set per point by run_sweep; load.seed seeds the prompts as well as the arrivals of the
/// first point, and each later point its own seed drawn from it (point_seed; the same seed
/// for every point with reuse_prompts or --check-outputs); one
/// Authorization header is sent: load.headers' own, else url_authorization, else the key in
/// $api_key_env (authorization.hpp).
struct sweep_settings {
  load_settings load;
  body_settings body;
  std::string dataset_name = "random";
  std::string dataset_path;
  dataset_options datasets;
  std::vector<double> concurrencies = {0};                                ///< whole numbers; 0: unlimited
  std::vector<double> rates = {std::numeric_limits<double>::infinity()};  ///< requests/s; inf: all at once
  std::int64_t num_prompts = 1000;
  std::int64_t num_prompts_per_concurrency = 0;  ///< positive: requests per point = this x max concurrency
  int num_warmups = 0;                           ///< requests sent first at full speed, not measured
  /// --reuse-prompts: every point sends the same prompts (the first point's seed). By default
  /// each point draws its own from the same distribution, so that a server's prefix cache does
  /// not serve a later point the prompts an earlier one prefilled.
  bool reuse_prompts = false;
  /// A point whose server-reported prefix-cache hit share exceeds this (percent) is warned of.
  double prefix_cache_warn_percent = 50;
  /// A point in which a larger share of the requests sent failed is INVALID (point_verdict.hpp).
  double max_failed_share = default_max_failed_share;
  metric_selection selection;
  goodput_slo slo;
  result_file_options save;
  itl_limit limit;
  server_metrics_settings server_metrics;
  slo_spec objectives;                    ///< --slo: what --search must keep (and the probes are judged on)
  std::optional<search_settings> search;  ///< --search: probe loads for the limit instead of the grid
  /// --check-outputs: a result file of an earlier run (saved with --save-result
  /// --save-detailed) whose texts each point's greedy completions are compared with
  /// (output_check.hpp); empty: none. run_sweep loads it into loaded_reference.
  std::string check_outputs;
  std::shared_ptr<const output_reference> loaded_reference;
  bool stop_at_saturation = true;  ///< end an axis of rising load once it saturates (saturation.hpp)
  client_ranks ranks;              ///< several client processes (mpirun): rank 0 reports
  gpu_watch_factory watch_gpus;    ///< the server's GPUs, watched during each point (empty: none)
  std::string tokenizer;           ///< tokenizer.json (or its directory); empty: none
  /// --chat-template: "auto" (the one beside the tokenizer, on the chat endpoint), "none", or a
  /// tokenizer_config.json / .jinja file; chat prompts are counted through it (chat/)
  std::string chat_template = "auto";
  std::string api_key_env = "OPENAI_API_KEY";
  lora_selection lora;  ///< --lora-modules: adapters named as each request's model (none: --model)
  /// Refuse to start when the server's GET /v1/models does not list every adapter (adapter_check.hpp).
  bool check_adapters = true;
  /// The Basic Authorization header of a user and password given in a base URL
  /// (take_url_credentials), sent unless load.headers holds an Authorization header.
  std::optional<std::string> url_authorization;
  double progress_interval_s = 0;  ///< a progress line this often during each point (0: none)
  bool live_progress = false;      ///< rewrite the line in place (a terminal) instead of one per interval
  /// Embeddings, rerank, score (load.kind): inputs per request (a sweep axis, outermost) and the
  /// query's length.
  pooling_settings pooling;
  image_settings images;  ///< chat: synthetic images beside each prompt's text (none by default)
  /// --gpus: GPUs behind the endpoint(s), for throughput per GPU (unset: no per-GPU figures).
  std::optional<int> gpus;
  /// --at-interactivity: the throughput the sweep's frontier gives at this many tok/s/user
  /// (serve/sweep/interactivity_points.hpp).
  std::optional<double> at_interactivity;
};

/// Parses a comma-separated list of numbers ("inf" allowed), e.g. --request-rate 1,2,inf;
/// usage_error naming `flag` when an item is not a number.
[[nodiscard]] std::vector<double> parse_sweep_values(const std::string& text, const char* flag);

/// round-robin or least-outstanding; usage_error otherwise.
[[nodiscard]] balance_policy parse_balance(const std::string& text);

/// Whether token times come from the kernel's receive stamps: "kernel" (true) or "read"
/// (false); usage_error otherwise.
[[nodiscard]] bool parse_receive_time(const std::string& text);

/// --percentile-metrics (e.g. "ttft,tpot,itl") and --metric-percentiles (e.g. "50,99"),
/// both checked as check_sweep_settings checks them.
[[nodiscard]] metric_selection parse_metric_selection(const std::string& metrics, const std::string& percentiles);

/// Removes trailing slashes from every base URL; usage_error when one is neither http:// nor https://.
void normalize_base_urls(std::vector<std::string>& urls);

/// Checks `settings` before anything is sent and throws usage_error with the flag's message:
/// base URLs, --ca-cert, --header, --tokenizer, percentile metrics and percentiles, rates
/// (and that each point's schedule ends within max_schedule_s), concurrencies, --num-prompts,
/// --num-warmups, --max-failed-share, the dataset (known, with --dataset-path when it needs one),
/// --metrics-url and --metrics-interval, --duration and --grace-period (load.duration_s,
/// load.grace_s: at most max_schedule_s each), the ramp-up (load.ramp: check_ramp_up, and
/// neither with --request-rate, a trace nor --search).
void check_sweep_settings(const sweep_settings& settings);

/// Where a sweep reports as it goes; each line ends in '\n'. Either may be empty.
struct sweep_callbacks {
  /// The console: each point's summary, the saved files, the best point under the ITL limit.
  std::function<void(const std::string&)> console;
  /// Progress and errors ("serve: 1000 requests, max concurrency 8, ..."), for stderr.
  std::function<void(const std::string&)> progress;
};

/// What a sweep measured.
struct sweep_outcome {
  std::vector<core::case_result> cases;  ///< one "serve" case per point (schema/serving.hpp)
  std::vector<json> points;              ///< vLLM's result object of each point
  /// GPU telemetry series: [{"case": index into cases, "device", "samples"}] (run.telemetry's form).
  json telemetry = json::array();
  /// To merge into the run's settings: endpoints, authorization (where the credential sent came
  /// from: "--header", "user and password in --base-url", "API key from $VAR" or "none") and, with an ITL limit met,
  /// best_under_itl_limit (index into points).
  json settings = json::object();
  bool invalid = false;  ///< a point was INVALID (the client fell behind) or no request succeeded
  /// --search ended with no judged answer: no load met the objectives, and the lowest load
  /// probed could not be judged (the client fell behind), so "missed" cannot be said.
  bool unjudged = false;
};

/// A point bounded by time (load.duration_s > 0): how many requests to prepare for it, at most
/// `cap` (--num-prompts: the count caps, the duration bounds). On a schedule (a finite rate or
/// a ramp), the arrivals its schedule (load.seed) has within the duration, up to `cap`; a
/// closed loop sends as fast as its slots free, so `cap`.
[[nodiscard]] std::int64_t timed_point_requests(const load_settings& load, std::int64_t cap);

/// The seed of the prompts and arrivals of a sweep's `point`-th set of requests (0: the first
/// point, `seed` itself; a search's capacity estimate counts as a point).
[[nodiscard]] std::uint64_t point_seed(std::uint64_t seed, std::uint64_t point);

/// Runs every point (concurrencies outer, rates inner), writing the result files asked for;
/// an axis of rising load stops at its first saturated point (stop_at_saturation). With
/// `search`, probes loads for the highest one meeting `objectives` instead, every probe a
/// point, and adds a serve_slo_limit case with the answer.
/// Checks the settings first (check_sweep_settings) and creates the result directory.
/// `cancel` (Ctrl-C) stops the sweep; the points measured so far are returned.
[[nodiscard]] sweep_outcome run_sweep(const sweep_settings& settings, const std::atomic<bool>* cancel,
                                      const sweep_callbacks& callbacks);

}  // namespace ironbench::serve
