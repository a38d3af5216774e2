#include "serve/point/serve_point.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/utc_time.hpp"
#include "schema/serving.hpp"
#include "serve/client/client_ranks.hpp"
#include "serve/measures/goodput_shares.hpp"
#include "serve/measures/image_prompt_metrics.hpp"
#include "serve/measures/pooling_metrics.hpp"
#include "serve/measures/reasoning_metrics.hpp"
#include "serve/metrics/engine_metric_names.hpp"
#include "serve/metrics/metrics_scraper.hpp"
#include "serve/metrics/remote_gpu_telemetry.hpp"
#include "serve/metrics/server_metrics_summary.hpp"
#include "serve/metrics/ttft_breakdown.hpp"
#include "serve/point/point_timeline.hpp"
#include "serve/point/point_verdict.hpp"
#include "serve/point/progress_line.hpp"
#include "serve/point/serve_report.hpp"
#include "serve/point/steady_state_window.hpp"
#include "serve/sweep/interactivity_points.hpp"
#include "serve/sweep/output_check.hpp"
#include "serve/workload/arrival_schedule.hpp"
#include "serve/workload/lora_adapters.hpp"

namespace ironbench::serve {

void say(const std::function<void(const std::string&)>& sink, const std::string& line) {
  if (sink) sink(line);
}

namespace {

// The unit of a flat server metric (server_<metric>_<statistic>).
std::string server_metric_unit(const std::string& key) {
  for (const auto& m : server_metrics()) {
    const auto prefix = std::string("server_") + m.name + "_";
    if (key.rfind(prefix, 0) != 0) continue;
    return key.substr(prefix.size()) == "per_s" ? std::string(m.unit) + "/s" : std::string(m.unit);
  }
  return "";
}

// Where /metrics is scraped: the URLs given, else <base-url>/metrics of every endpoint.
std::vector<std::string> metrics_urls(const sweep_settings& s, const load_settings& load) {
  if (!s.server_metrics.urls.empty()) return s.server_metrics.urls;
  std::vector<std::string> urls;
  for (const auto& base : load.base_urls) urls.push_back(base + "/metrics");
  return urls;
}

// The case of one point, as schema/serving.hpp builds every serve case, plus the client's lateness.
core::case_result point_case(const load_settings& load, double concurrency, double rate, std::size_t requests,
                             const json& metrics, const load_result& result,
                             const std::map<std::string, double>& server_values) {
  schema::serving_point point;
  point.device = fmt::format("{}", fmt::join(load.base_urls, ","));
  point.max_concurrency = static_cast<std::int64_t>(concurrency);
  point.request_rate = schema::request_rate_text(rate);
  point.num_prompts = static_cast<std::int64_t>(requests);
  // A metric the point does not have (a pooling point's TTFT) is left out, not reported as 0.
  for (const auto& name : schema::serving_headline_metrics()) {
    if (metrics.contains(name)) point.values[name] = metrics.at(name).get<double>();
  }
  point.failed = metrics.at(schema::vllm_key::failed).get<double>();
  auto c = schema::serving_case(point);
  for (const auto& [name, value] : server_values) {
    c.metrics.push_back({name, value, server_metric_unit(name), "reported by the server's /metrics"});
  }
  if (is_pooling(load.kind)) {
    for (auto& m : pooling_case_metrics(metrics)) c.metrics.push_back(std::move(m));
  }
  for (auto& m : image_case_metrics(metrics)) c.metrics.push_back(std::move(m));
  c.metrics.push_back({"send_lateness_p99_ms", result.lateness_p99_ms, "ms", "client's lateness against its schedule"});
  for (const char* key : {"median_ttft_from_schedule_ms", "median_e2el_from_schedule_ms"}) {
    if (metrics.contains(key)) {
      c.metrics.push_back({key, metrics.at(key).get<double>(), "ms", "from the intended send time"});
    }
  }
  if (result.host_steal_percent) {
    c.metrics.push_back({"host_steal_percent", *result.host_steal_percent, "%", "CPU time the hypervisor stole"});
    c.metrics.push_back(
        {"host_others_cpu_percent", *result.host_others_percent, "%", "CPU time other processes of the host used"});
  }
  return c;
}

// This rank's settings for a point: its place among the client ranks and its share of the
// concurrency.
load_settings rank_share(const load_settings& load, const client_ranks& ranks) {
  auto share = load;
  share.rank = ranks.rank;
  share.ranks = ranks.size;
  share.max_concurrency = concurrency_share(load.max_concurrency, ranks.rank, ranks.size);
  // Rank 0 holds every rank's kept texts at the end: each keeps its share of the budget.
  if (load.max_kept_text_bytes > 0 && ranks.size > 1) {
    share.max_kept_text_bytes = std::max<std::int64_t>(1, load.max_kept_text_bytes / ranks.size);
  }
  return share;
}

// Several client ranks: rank 0 gets every rank's result merged into one (the others keep
// their own, which they do not report).
load_result gather_ranks(const client_ranks& ranks, load_result mine, const load_settings& load) {
  if (!ranks.several()) return mine;
  const auto texts = ranks.gather(core::json_text(load_result_json(mine)));
  if (ranks.rank != 0) return mine;
  std::vector<load_result> all;
  for (const auto& text : texts) all.push_back(load_result_from_json(json::parse(text)));
  return merge_rank_results(all, load.base_urls);
}

// The rate as the console shows it: the ramp's, or --request-rate's.
std::string rate_text(const load_settings& load) {
  if (!load.ramp.enabled()) return schema::request_rate_text(load.request_rate);
  return fmt::format("ramping up ({}) from {:g} to {:g}", to_string(load.ramp.strategy), load.ramp.start_rps,
                     load.ramp.end_rps);
}

// What the point's bounds and schedule were, for its result object: the prompts' seed, the
// ramp-up (vLLM's keys), and a point bounded by time's duration, grace period, requests sent
// (an outcome) and unfinished, and what ended it (docs/serving-metrics.md, "Points bounded by time").
void describe_point_bounds(json& vllm, const load_settings& load, const load_result& result) {
  vllm["prompt_seed"] = load.seed;
  if (load.ramp.enabled()) {
    vllm["ramp_up_strategy"] = to_string(load.ramp.strategy);
    vllm["ramp_up_start_rps"] = load.ramp.start_rps;
    vllm["ramp_up_end_rps"] = load.ramp.end_rps;
  }
  if (load.duration_s > 0) {
    vllm["duration_s"] = load.duration_s;
    vllm["grace_period_s"] = load.grace_s;
    vllm["requests_sent"] = result.records.size() + result.unfinished;
    vllm["unfinished_requests"] = result.unfinished;
    vllm["ended_by"] = result.ended_by;
  }
}

// One point from its prepared requests to its case, one method per phase: prepared (checks,
// adapters, warm-ups), watched (progress, /metrics, GPUs), measured (every rank's load),
// collected (the watchers stopped), computed (its metrics), described (its result object),
// reported (console, case, result file) and judged. Used once.
class point_run {
 public:
  point_run(const sweep_settings& s, const load_settings& load, std::vector<prepared_request> requests, bool named,
            const std::atomic<bool>* cancel, const sweep_callbacks& callbacks, sweep_outcome& out)
      : s_(s),
        load_(load),
        requests_(std::move(requests)),
        named_(named),
        cancel_(cancel),
        callbacks_(callbacks),
        out_(out),
        concurrency_(load.max_concurrency),
        rate_(load.request_rate) {}
  point_run(const point_run&) = delete;
  point_run& operator=(const point_run&) = delete;

  // True when the point was interrupted.
  bool run() {
    prepare();
    watch();
    measure();
    if (s_.ranks.rank != 0) return result_.interrupted;  // rank 0 reports the point
    collect();
    compute_metrics();
    describe();
    report();
    judge();
    out_.cases.push_back(std::move(c_));
    out_.points.push_back(vllm_);
    return result_.interrupted;
  }

 private:
  void prepare();
  void watch();
  void start_scrapers();
  void measure();
  void collect();
  void compute_metrics();
  void add_load_shape_metrics();
  void describe();
  void describe_server();
  void report();
  void make_case();
  void add_gpu_telemetry();
  void save();
  void judge();

  const sweep_settings& s_;
  const load_settings& load_;
  std::vector<prepared_request> requests_;
  const bool named_;
  const std::atomic<bool>* cancel_;
  const sweep_callbacks& callbacks_;
  sweep_outcome& out_;
  const double concurrency_, rate_;

  // Watching the point.
  load_settings measured_;
  bool shown_ = false;  // a progress line was shown
  std::unique_ptr<metrics_scraper> scraper_;
  std::vector<std::string> scrape_urls_;
  std::vector<watched_gpu> gpus_;
  // --gpu-metrics-url: each round folded into the history as it comes (bounded memory); the
  // history outlives the scraper, whose thread feeds it.
  std::unique_ptr<remote_gpu_history> gpu_history_;
  std::unique_ptr<metrics_scraper> gpu_scraper_;

  // What was measured and seen.
  load_result result_;
  point_gpu_telemetry gpu_;
  json server_ = nullptr;
  std::vector<scrape_round> server_rounds_;
  remote_gpu_telemetry remote_gpus_;
  bool pooled_ = false;
  json metrics_;

  // What is reported.
  point_description description_;
  std::size_t sent_ = 0;
  json vllm_;
  std::map<std::string, double> server_values_;
  ttft_breakdown breakdown_;
  core::case_result c_;
};

// The trace's schedule and the warm-ups checked, the adapters named, the warm-ups sent, and
// the point announced.
void point_run::prepare() {
  // A trace's schedule is checked before anything is sent (run_load checks it again).
  if (!requests_.empty() && requests_.front().send_at_s >= 0) {
    std::vector<double> times;
    for (const auto& r : requests_) times.push_back((r.send_at_s - requests_.front().send_at_s) / load_.trace_speed);
    check_schedule_span(times, fmt::format("the trace's times at --trace-speed {:g}", load_.trace_speed));
  }
  // Stopped (Ctrl-C) while its requests were built (a single client process: sweep_run::prepare):
  // the point sends nothing and is recorded as interrupted, with the requests it has.
  const bool stopped = !s_.ranks.several() && cancel_ != nullptr && cancel_->load();
  if (!stopped && static_cast<std::size_t>(std::max(0, s_.num_warmups)) >= requests_.size()) {
    throw usage_error(fmt::format("--num-warmups {} leaves none of the dataset's {} requests to measure",
                                  s_.num_warmups, requests_.size()));
  }
  apply_lora_adapters(requests_, s_.lora, load_.seed);  // --lora-modules: each request's adapter as its model
  if (s_.num_warmups > 0 && !stopped) {
    std::vector<prepared_request> warm(requests_.begin(), requests_.begin() + s_.num_warmups);
    requests_.erase(requests_.begin(), requests_.begin() + s_.num_warmups);
    auto warm_settings = rank_share(load_, s_.ranks);
    warm_settings.request_rate = std::numeric_limits<double>::infinity();
    (void)run_load(warm, warm_settings, cancel_);
  }
  say(callbacks_.progress,
      fmt::format("serve: {}{} requests, max concurrency {}, request rate {}, {} endpoint(s)\n",
                  load_.duration_s > 0 ? fmt::format("for {:g} s, at most ", load_.duration_s) : "", requests_.size(),
                  concurrency_ > 0 ? fmt::format("{:g}", concurrency_) : "unlimited", rate_text(load_),
                  load_.base_urls.size()));
}

// This rank's share of the load with its progress line, the ranks' common start, and the
// watchers of the server and its GPUs (on rank 0).
void point_run::watch() {
  const auto& ranks = s_.ranks;
  measured_ = rank_share(load_, ranks);
  if (s_.progress_interval_s > 0 && ranks.rank == 0) {
    measured_.progress_interval_s = s_.progress_interval_s;
    measured_.on_progress = [this](const load_progress& p) {
      say(callbacks_.progress, progress_line(p, s_.live_progress));
      shown_ = true;
    };
  }
  scrape_urls_ = metrics_urls(s_, load_);
  if (ranks.several()) {
    // Every rank's schedule starts at one moment on the wall clock, chosen by rank 0 a little
    // ahead (a barrier alone lets ranks leave it milliseconds apart).
    ranks.barrier();
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    measured_.start_at_unix_s = ranks.sum(ranks.rank == 0 ? now + 0.05 : 0.0);
  }
  if (s_.watch_gpus && ranks.rank == 0) gpus_ = s_.watch_gpus();
  start_scrapers();
}

// /metrics and --gpu-metrics-url scraped during the point (rank 0).
void point_run::start_scrapers() {
  if (s_.ranks.rank != 0) return;
  if (s_.server_metrics.enabled) {
    scrape_settings settings;
    settings.urls = scrape_urls_;
    settings.interval_s = s_.server_metrics.interval_s;
    settings.headers = scrape_headers(scrape_urls_, load_.base_urls, load_.headers);
    settings.ca_file = load_.ca_file;
    settings.verify_tls = load_.verify_tls;
    scraper_ = std::make_unique<metrics_scraper>(std::move(settings));
  }
  if (!s_.server_metrics.gpu_urls.empty()) {
    const auto& urls = s_.server_metrics.gpu_urls;
    gpu_history_ = std::make_unique<remote_gpu_history>(urls, s_.server_metrics.interval_s);
    scrape_settings settings;
    settings.urls = urls;
    settings.interval_s = s_.server_metrics.interval_s;
    settings.headers = scrape_headers(urls, load_.base_urls, load_.headers);
    settings.ca_file = load_.ca_file;
    settings.verify_tls = load_.verify_tls;
    settings.on_round = [history = gpu_history_.get()](scrape_round&& round) { history->add(round); };
    gpu_scraper_ = std::make_unique<metrics_scraper>(gpu_exporter_scrape_settings(std::move(settings)));
  }
}

// This rank's load run, and every rank's results merged at rank 0.
void point_run::measure() { result_ = gather_ranks(s_.ranks, run_load(requests_, measured_, cancel_), load_); }

// The point judged on its requests, and the watchers stopped: the GPUs, /metrics, the GPU
// exporters, the progress line.
void point_run::collect() {
  judge_point(result_, s_.max_failed_share);
  // The GPUs stop being watched when the load ends.
  double output_tokens = 0;
  for (const auto& r : result_.records) output_tokens += r.success ? static_cast<double>(r.output_len) : 0;
  gpu_ = finish_gpu_watch(gpus_, output_tokens);
  if (scraper_) {
    server_rounds_ = scraper_->stop();
    server_ = summarize_server_metrics(server_rounds_, scrape_urls_, result_.origin_monotonic_ns,
                                       s_.server_metrics.interval_s);
  }
  if (gpu_scraper_) (void)gpu_scraper_->stop();  // the last round folded in
  if (gpu_history_)
    remote_gpus_ = gpu_history_->summarize(result_.origin_monotonic_ns, result_.duration_s, output_tokens);
  if (shown_) say(callbacks_.progress, end_of_progress(s_.live_progress));
}

// The point's metrics: vLLM's (or a pooling point's), images, turns, from the schedule,
// goodput, interactivity, the steady state, reasoning and adapters.
void point_run::compute_metrics() {
  pooled_ = is_pooling(load_.kind);
  metrics_ = pooled_ ? pooling_metrics(result_.records, result_.duration_s, s_.selection, load_.inputs_per_request,
                                       result_.embedding_dimension)
                     : serving_metrics(result_.records, result_.duration_s, s_.slo, s_.selection);
  metrics_.update(image_prompt_metrics(result_.records));
  if (auto turns = turn_metrics(result_.records); !turns.empty()) {
    metrics_["turns"] = std::move(turns);
    metrics_["conversation_turns_not_sent"] = result_.turns_dropped;
  }
  // On a schedule, also the latency from the intended send time.
  if (!std::isinf(rate_) || load_.ramp.enabled()) {
    metrics_.update(pooled_ ? pooling_schedule_metrics(result_.records, s_.selection)
                            : schedule_latency_metrics(result_.records, s_.selection));
  }
  if (!pooled_) add_load_shape_metrics();
  // Reasoning models: the first reasoning and answer tokens; LoRA adapters: each one's metrics.
  metrics_.update(reasoning_metrics(result_.records, s_.selection));
  if (s_.lora.enabled()) metrics_["per_adapter"] = adapter_metrics(result_.records, result_.duration_s, s_.lora);
}

// Goodput as shares and tokens, interactivity (and per GPU), and the steady-state window.
void point_run::add_load_shape_metrics() {
  metrics_.update(goodput_shares(result_.records, result_.duration_s, s_.slo));
  metrics_.update(interactivity_metrics(result_.records, metrics_, s_.gpus));
  const point_load shape{
      !std::isinf(rate_) || load_.ramp.enabled() || (!requests_.empty() && requests_.front().send_at_s >= 0),
      static_cast<std::size_t>(concurrency_)};
  metrics_["steady_state"] = steady_state_metrics(result_.records, shape, s_.selection);
  // A ramp-up: the window is over the ramp (the rate rose through it), marked as such.
  if (load_.ramp.enabled()) {
    metrics_["steady_state"]["ramp_up"] = {{"strategy", to_string(load_.ramp.strategy)},
                                           {"start_rps", load_.ramp.start_rps},
                                           {"end_rps", load_.ramp.end_rps}};
  }
}

// The point's result object (vLLM's keys and ironbench's), and the line of a point bounded by time.
void point_run::describe() {
  description_.date = utc_time(std::chrono::system_clock::now(), "%Y%m%d-%H%M%S");
  description_.api = load_.api;
  description_.model = s_.body.model;
  description_.tokenizer = s_.tokenizer;
  // Bounded by time, the requests sent are an outcome (the unfinished ones among them).
  sent_ = load_.duration_s > 0 ? result_.records.size() + result_.unfinished : requests_.size();
  description_.num_prompts = sent_;
  description_.request_rate = rate_;
  description_.burstiness = load_.burstiness;
  description_.max_concurrency = concurrency_ > 0 ? static_cast<int>(concurrency_) : 0;
  vllm_ = vllm_point_json(description_, metrics_, result_);
  describe_point_bounds(vllm_, load_, result_);
  if (load_.duration_s > 0) {
    say(callbacks_.console,
        fmt::format("duration {:g} s: {} requests sent, {} unfinished after the {:g} s grace period (left out of "
                    "the metrics); ended by {}\n",
                    load_.duration_s, sent_, result_.unfinished, load_.grace_s,
                    result_.ended_by == "duration"      ? "the duration"
                    : result_.ended_by == "num_prompts" ? "--num-prompts (every prepared request sent)"
                                                        : result_.ended_by));
  }
  // How the requests sampled (null: the server's default), which --check-outputs reads.
  vllm_["temperature"] = s_.body.extra.contains("temperature") ? s_.body.extra.at("temperature") : json(nullptr);
  if (!result_.ranks.is_null()) vllm_["client_ranks"] = result_.ranks;
  if (pooled_) describe_pooling_point(vllm_, load_.kind, load_.endpoint);
  describe_server();
}

// What the server said: its /metrics values, where TTFT goes, its GPUs through their exporters.
void point_run::describe_server() {
  server_values_ = server_metric_values(server_);
  for (const auto& [name, value] : server_values_) vllm_[name] = value;
  // Where TTFT goes, from the servers' stage histograms (ttft_breakdown.hpp); a pooling point
  // has no TTFT to break down.
  breakdown_ = pooled_ ? ttft_breakdown{}
                       : summarize_ttft_breakdown(
                             server_rounds_, scrape_urls_, s_.server_metrics.roles, metrics_.value("mean_ttft_ms", 0.0),
                             metrics_.value("mean_e2el_ms", 0.0), metrics_.value("completed", 0.0));
  if (!breakdown_.summary.is_null()) vllm_["ttft_breakdown"] = breakdown_.summary;
  for (const auto& [name, value] : breakdown_.values) vllm_[name] = value;
  if (!remote_gpus_.summary.is_null()) vllm_["remote_gpu_telemetry"] = remote_gpus_.summary;
}

// The console summary, the point's case, and its result file.
void point_run::report() {
  std::ostringstream summary;
  if (pooled_) {
    write_pooling_summary(summary, metrics_, result_, s_.selection);
  } else {
    write_serving_summary(summary, metrics_, result_, s_.selection);
  }
  write_image_prompt_summary(summary, metrics_);
  summary << reasoning_summary(metrics_, s_.selection)
          << adapter_summary(metrics_.value("per_adapter", json::object()));
  if (!server_.is_null()) write_server_metrics_summary(summary, server_);
  summary << ttft_breakdown_text(breakdown_.summary) << remote_gpu_text(remote_gpus_.summary);
  say(callbacks_.console, summary.str());
  make_case();
  save();
}

// The point's case: its metrics, the output check, the GPUs, the result object and the timeline.
void point_run::make_case() {
  c_ = point_case(load_, concurrency_, rate_, sent_, metrics_, result_, server_values_);
  if (load_.duration_s > 0) {
    c_.metrics.push_back({"unfinished_requests", static_cast<double>(result_.unfinished), "requests",
                          "still in flight when the grace period ended"});
  }
  for (const auto& [name, value] : breakdown_.values)
    c_.metrics.push_back({name, value, "ms", "server stage histograms"});
  for (const auto& m : remote_gpus_.metrics) {
    vllm_[m.name] = m.value;
    c_.metrics.push_back(m);
  }
  if (s_.loaded_reference) {  // --check-outputs
    auto check = check_outputs(result_.records, *s_.loaded_reference, load_.tokenizer);
    say(callbacks_.console, output_check_line(check));
    add_output_check_metrics(check, c_);
    vllm_["output_check"] = std::move(check);
  }
  for (auto& m : interactivity_case_metrics(metrics_)) c_.metrics.push_back(std::move(m));
  for (const auto& [key, unit] : {std::pair{"slo_attainment", "share"}, std::pair{"token_goodput", "tok/s"}}) {
    if (metrics_.contains(key)) c_.metrics.push_back({key, metrics_.at(key).get<double>(), unit, "within --goodput"});
  }
  if (const auto steady = metrics_.value("steady_state", json()); steady.contains("output_throughput")) {
    c_.metrics.push_back({"steady_output_throughput", steady.at("output_throughput").get<double>(), "tok/s",
                          "over the steady-state window"});
  }
  if (!gpus_.empty()) add_gpu_telemetry();
  c_.notes["result"] = core::json_text(vllm_);
  if (!server_.is_null()) {
    c_.notes["server_metrics"] = core::json_text(server_);
    vllm_["server_metrics"] = server_;
  }
  c_.series = point_timeline(result_.records, result_.duration_s, s_.server_metrics.interval_s, server_);
  if (const auto steady = metrics_.value("steady_state", json()); steady.contains("start_s")) {
    c_.series["client_steady_state_s"] = {steady.at("start_s").get<double>(), steady.at("end_s").get<double>()};
  }
}

// The GPUs watched on this node: their metrics, summary and series, and their energy's line.
void point_run::add_gpu_telemetry() {
  for (auto& m : gpu_.metrics) {
    // With --gpu-metrics-url too, the exporter's figures keep the flat names.
    const auto taken = [&](const core::metric& x) { return x.name == m.name; };
    if (!remote_gpus_.metrics.empty() && std::any_of(c_.metrics.begin(), c_.metrics.end(), taken)) continue;
    vllm_[m.name] = m.value;
    c_.metrics.push_back(std::move(m));
  }
  vllm_["gpu_telemetry"] = gpu_.summary;
  c_.telemetry = gpu_.summary;
  for (auto& series : gpu_.series) {
    series["case"] = out_.cases.size();  // this case's index once it is added
    out_.telemetry.push_back(std::move(series));
  }
  if (gpu_.summary.contains("energy_invalid_reason")) {
    say(callbacks_.console,
        fmt::format("GPU energy: INVALID ({})\n", gpu_.summary.at("energy_invalid_reason").get<std::string>()));
  }
  if (gpu_.summary.contains("joules_per_output_token")) {
    say(callbacks_.console,
        fmt::format("GPU energy: {:.1f} J, {:.4f} J per output token, {:.2f} output tokens per J\n",
                    gpu_.summary.at("energy_j").get<double>(), gpu_.summary.at("joules_per_output_token").get<double>(),
                    gpu_.summary.at("output_tokens_per_joule").get<double>()));
  }
}

// --save-result: the result file, and a line when texts were not kept in it.
void point_run::save() {
  if (!s_.save.save_result) return;
  const auto name = named_ ? s_.save.result_filename
                           : result_file_name(vllm_, rate_, description_.max_concurrency, description_.date);
  say(callbacks_.console, "saved: " + write_result_file(vllm_, result_, s_.save, name).string() + "\n");
  const auto not_kept = std::count_if(result_.records.begin(), result_.records.end(),
                                      [](const request_record& r) { return r.text_not_kept; });
  if (not_kept > 0) {
    say(callbacks_.console,
        fmt::format("{} generated texts were not kept: past --max-kept-text-bytes ({} bytes); the result file "
                    "counts them in generated_texts_not_kept\n",
                    not_kept, s_.load.max_kept_text_bytes));
  }
}

// The case's status: INVALID with the point's reason, FAILED when not one request succeeded.
void point_run::judge() {
  if (!result_.valid) {
    c_.status = core::case_status::invalid;
    c_.reason = result_.invalid_reason;
    out_.invalid = true;
  }
  // Not one request succeeded (server down, wrong URL or endpoint): say so in one line.
  if (!result_.records.empty() && metrics_.at(schema::vllm_key::completed).get<std::size_t>() == 0 &&
      !result_.interrupted) {
    const auto& first = result_.records.front();
    c_.status = core::case_status::failed;
    c_.reason = fmt::format("no request succeeded; the first failed with {}: {}", first.error_class, first.error);
    say(callbacks_.progress, fmt::format("ironbench: error: no request to {}{} succeeded ({}: {})\n", first.endpoint,
                                         load_.endpoint, first.error_class, first.error));
    out_.invalid = true;
  }
}

}  // namespace

bool run_point(const sweep_settings& s, const load_settings& load, std::vector<prepared_request> requests, bool named,
               const std::atomic<bool>* cancel, const sweep_callbacks& callbacks, sweep_outcome& out) {
  point_run point(s, load, std::move(requests), named, cancel, callbacks, out);
  return point.run();
}

}  // namespace ironbench::serve
