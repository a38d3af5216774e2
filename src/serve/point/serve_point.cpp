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

}  // namespace

bool run_point(const sweep_settings& s, const load_settings& load, std::vector<prepared_request> requests, bool named,
               const std::atomic<bool>* cancel, const sweep_callbacks& callbacks, sweep_outcome& out) {
  const double concurrency = load.max_concurrency, rate = load.request_rate;
  const auto& ranks = s.ranks;
  // A trace's schedule is checked before anything is sent (run_load checks it again).
  if (!requests.empty() && requests.front().send_at_s >= 0) {
    std::vector<double> times;
    for (const auto& r : requests) times.push_back((r.send_at_s - requests.front().send_at_s) / load.trace_speed);
    check_schedule_span(times, fmt::format("the trace's times at --trace-speed {:g}", load.trace_speed));
  }
  if (static_cast<std::size_t>(std::max(0, s.num_warmups)) >= requests.size()) {
    throw usage_error(fmt::format("--num-warmups {} leaves none of the dataset's {} requests to measure", s.num_warmups,
                                  requests.size()));
  }
  apply_lora_adapters(requests, s.lora, load.seed);  // --lora-modules: each request's adapter as its model
  if (s.num_warmups > 0) {
    std::vector<prepared_request> warm(requests.begin(), requests.begin() + s.num_warmups);
    requests.erase(requests.begin(), requests.begin() + s.num_warmups);
    auto warm_settings = rank_share(load, ranks);
    warm_settings.request_rate = std::numeric_limits<double>::infinity();
    (void)run_load(warm, warm_settings, cancel);
  }
  say(callbacks.progress, fmt::format("serve: {}{} requests, max concurrency {}, request rate {}, {} endpoint(s)\n",
                                      load.duration_s > 0 ? fmt::format("for {:g} s, at most ", load.duration_s) : "",
                                      requests.size(), concurrency > 0 ? fmt::format("{:g}", concurrency) : "unlimited",
                                      rate_text(load), load.base_urls.size()));
  auto measured = rank_share(load, ranks);
  bool shown = false;
  if (s.progress_interval_s > 0 && ranks.rank == 0) {
    measured.progress_interval_s = s.progress_interval_s;
    measured.on_progress = [&](const load_progress& p) {
      say(callbacks.progress, progress_line(p, s.live_progress));
      shown = true;
    };
  }
  std::unique_ptr<metrics_scraper> scraper;
  const auto scrape_urls = metrics_urls(s, load);
  if (ranks.several()) {
    // Every rank's schedule starts at one moment on the wall clock, chosen by rank 0 a little
    // ahead (a barrier alone lets ranks leave it milliseconds apart).
    ranks.barrier();
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    measured.start_at_unix_s = ranks.sum(ranks.rank == 0 ? now + 0.05 : 0.0);
  }
  auto gpus = s.watch_gpus && ranks.rank == 0 ? s.watch_gpus() : std::vector<watched_gpu>{};
  if (s.server_metrics.enabled && ranks.rank == 0) {
    scrape_settings settings;
    settings.urls = scrape_urls;
    settings.interval_s = s.server_metrics.interval_s;
    settings.headers = scrape_headers(scrape_urls, load.base_urls, load.headers);
    settings.ca_file = load.ca_file;
    settings.verify_tls = load.verify_tls;
    scraper = std::make_unique<metrics_scraper>(std::move(settings));
  }
  // --gpu-metrics-url: each round folded into the history as it comes (bounded memory); the
  // history outlives the scraper, whose thread feeds it.
  std::unique_ptr<remote_gpu_history> gpu_history;
  std::unique_ptr<metrics_scraper> gpu_scraper;
  if (!s.server_metrics.gpu_urls.empty() && ranks.rank == 0) {
    const auto& urls = s.server_metrics.gpu_urls;
    gpu_history = std::make_unique<remote_gpu_history>(urls, s.server_metrics.interval_s);
    scrape_settings settings;
    settings.urls = urls;
    settings.interval_s = s.server_metrics.interval_s;
    settings.headers = scrape_headers(urls, load.base_urls, load.headers);
    settings.ca_file = load.ca_file;
    settings.verify_tls = load.verify_tls;
    settings.on_round = [history = gpu_history.get()](scrape_round&& round) { history->add(round); };
    gpu_scraper = std::make_unique<metrics_scraper>(gpu_exporter_scrape_settings(std::move(settings)));
  }
  auto result = gather_ranks(ranks, run_load(requests, measured, cancel), load);
  if (ranks.rank != 0) return result.interrupted;  // rank 0 reports the point
  judge_point(result, s.max_failed_share);
  // The GPUs stop being watched when the load ends.
  double output_tokens = 0;
  for (const auto& r : result.records) output_tokens += r.success ? static_cast<double>(r.output_len) : 0;
  auto gpu = finish_gpu_watch(gpus, output_tokens);
  json server = nullptr;
  std::vector<scrape_round> server_rounds;
  if (scraper) {
    server_rounds = scraper->stop();
    server =
        summarize_server_metrics(server_rounds, scrape_urls, result.origin_monotonic_ns, s.server_metrics.interval_s);
  }
  if (gpu_scraper) (void)gpu_scraper->stop();  // the last round folded in
  const auto remote_gpus = gpu_history
                               ? gpu_history->summarize(result.origin_monotonic_ns, result.duration_s, output_tokens)
                               : remote_gpu_telemetry{};
  if (shown) say(callbacks.progress, end_of_progress(s.live_progress));
  const bool pooled = is_pooling(load.kind);
  auto metrics = pooled ? pooling_metrics(result.records, result.duration_s, s.selection, load.inputs_per_request,
                                          result.embedding_dimension)
                        : serving_metrics(result.records, result.duration_s, s.slo, s.selection);
  metrics.update(image_prompt_metrics(result.records));
  if (auto turns = turn_metrics(result.records); !turns.empty()) {
    metrics["turns"] = std::move(turns);
    metrics["conversation_turns_not_sent"] = result.turns_dropped;
  }
  // On a schedule, also the latency from the intended send time.
  if (!std::isinf(rate) || load.ramp.enabled()) {
    metrics.update(pooled ? pooling_schedule_metrics(result.records, s.selection)
                          : schedule_latency_metrics(result.records, s.selection));
  }
  // Goodput as shares and tokens, interactivity (and per GPU), and the steady-state window.
  if (!pooled) {
    metrics.update(goodput_shares(result.records, result.duration_s, s.slo));
    metrics.update(interactivity_metrics(result.records, metrics, s.gpus));
    const point_load shape{
        !std::isinf(rate) || load.ramp.enabled() || (!requests.empty() && requests.front().send_at_s >= 0),
        static_cast<std::size_t>(concurrency)};
    metrics["steady_state"] = steady_state_metrics(result.records, shape, s.selection);
    // A ramp-up: the window is over the ramp (the rate rose through it), marked as such.
    if (load.ramp.enabled()) {
      metrics["steady_state"]["ramp_up"] = {{"strategy", to_string(load.ramp.strategy)},
                                            {"start_rps", load.ramp.start_rps},
                                            {"end_rps", load.ramp.end_rps}};
    }
  }
  // Reasoning models: the first reasoning and answer tokens; LoRA adapters: each one's metrics.
  metrics.update(reasoning_metrics(result.records, s.selection));
  if (s.lora.enabled()) metrics["per_adapter"] = adapter_metrics(result.records, result.duration_s, s.lora);
  point_description description;
  description.date = utc_time(std::chrono::system_clock::now(), "%Y%m%d-%H%M%S");
  description.api = load.api;
  description.model = s.body.model;
  description.tokenizer = s.tokenizer;
  // Bounded by time, the requests sent are an outcome (the unfinished ones among them).
  const std::size_t sent = load.duration_s > 0 ? result.records.size() + result.unfinished : requests.size();
  description.num_prompts = sent;
  description.request_rate = rate;
  description.burstiness = load.burstiness;
  description.max_concurrency = concurrency > 0 ? static_cast<int>(concurrency) : 0;
  auto vllm = vllm_point_json(description, metrics, result);
  describe_point_bounds(vllm, load, result);
  if (load.duration_s > 0) {
    say(callbacks.console,
        fmt::format("duration {:g} s: {} requests sent, {} unfinished after the {:g} s grace period (left out of "
                    "the metrics); ended by {}\n",
                    load.duration_s, sent, result.unfinished, load.grace_s,
                    result.ended_by == "duration"      ? "the duration"
                    : result.ended_by == "num_prompts" ? "--num-prompts (every prepared request sent)"
                                                       : result.ended_by));
  }
  // How the requests sampled (null: the server's default), which --check-outputs reads.
  vllm["temperature"] = s.body.extra.contains("temperature") ? s.body.extra.at("temperature") : json(nullptr);
  if (!result.ranks.is_null()) vllm["client_ranks"] = result.ranks;
  if (pooled) describe_pooling_point(vllm, load.kind, load.endpoint);
  const auto server_values = server_metric_values(server);
  for (const auto& [name, value] : server_values) vllm[name] = value;
  // Where TTFT goes, from the servers' stage histograms (ttft_breakdown.hpp); a pooling point
  // has no TTFT to break down.
  const auto breakdown =
      pooled ? ttft_breakdown{}
             : summarize_ttft_breakdown(server_rounds, scrape_urls, s.server_metrics.roles,
                                        metrics.value("mean_ttft_ms", 0.0), metrics.value("mean_e2el_ms", 0.0),
                                        metrics.value("completed", 0.0));
  if (!breakdown.summary.is_null()) vllm["ttft_breakdown"] = breakdown.summary;
  for (const auto& [name, value] : breakdown.values) vllm[name] = value;
  if (!remote_gpus.summary.is_null()) vllm["remote_gpu_telemetry"] = remote_gpus.summary;
  std::ostringstream summary;
  if (pooled) {
    write_pooling_summary(summary, metrics, result, s.selection);
  } else {
    write_serving_summary(summary, metrics, result, s.selection);
  }
  write_image_prompt_summary(summary, metrics);
  summary << reasoning_summary(metrics, s.selection) << adapter_summary(metrics.value("per_adapter", json::object()));
  if (!server.is_null()) write_server_metrics_summary(summary, server);
  summary << ttft_breakdown_text(breakdown.summary) << remote_gpu_text(remote_gpus.summary);
  say(callbacks.console, summary.str());
  auto c = point_case(load, concurrency, rate, sent, metrics, result, server_values);
  if (load.duration_s > 0) {
    c.metrics.push_back({"unfinished_requests", static_cast<double>(result.unfinished), "requests",
                         "still in flight when the grace period ended"});
  }
  for (const auto& [name, value] : breakdown.values)
    c.metrics.push_back({name, value, "ms", "server stage histograms"});
  for (const auto& m : remote_gpus.metrics) {
    vllm[m.name] = m.value;
    c.metrics.push_back(m);
  }
  if (s.loaded_reference) {  // --check-outputs
    auto check = check_outputs(result.records, *s.loaded_reference, load.tokenizer);
    say(callbacks.console, output_check_line(check));
    add_output_check_metrics(check, c);
    vllm["output_check"] = std::move(check);
  }
  for (auto& m : interactivity_case_metrics(metrics)) c.metrics.push_back(std::move(m));
  for (const auto& [key, unit] : {std::pair{"slo_attainment", "share"}, std::pair{"token_goodput", "tok/s"}}) {
    if (metrics.contains(key)) c.metrics.push_back({key, metrics.at(key).get<double>(), unit, "within --goodput"});
  }
  if (const auto steady = metrics.value("steady_state", json()); steady.contains("output_throughput")) {
    c.metrics.push_back({"steady_output_throughput", steady.at("output_throughput").get<double>(), "tok/s",
                         "over the steady-state window"});
  }
  if (!gpus.empty()) {
    for (auto& m : gpu.metrics) {
      // With --gpu-metrics-url too, the exporter's figures keep the flat names.
      const auto taken = [&](const core::metric& x) { return x.name == m.name; };
      if (!remote_gpus.metrics.empty() && std::any_of(c.metrics.begin(), c.metrics.end(), taken)) continue;
      vllm[m.name] = m.value;
      c.metrics.push_back(std::move(m));
    }
    vllm["gpu_telemetry"] = gpu.summary;
    c.telemetry = gpu.summary;
    for (auto& series : gpu.series) {
      series["case"] = out.cases.size();  // this case's index once it is added
      out.telemetry.push_back(std::move(series));
    }
    if (gpu.summary.contains("energy_invalid_reason")) {
      say(callbacks.console,
          fmt::format("GPU energy: INVALID ({})\n", gpu.summary.at("energy_invalid_reason").get<std::string>()));
    }
    if (gpu.summary.contains("joules_per_output_token")) {
      say(callbacks.console,
          fmt::format("GPU energy: {:.1f} J, {:.4f} J per output token, {:.2f} output tokens per J\n",
                      gpu.summary.at("energy_j").get<double>(), gpu.summary.at("joules_per_output_token").get<double>(),
                      gpu.summary.at("output_tokens_per_joule").get<double>()));
    }
  }
  c.notes["result"] = core::json_text(vllm);
  if (!server.is_null()) {
    c.notes["server_metrics"] = core::json_text(server);
    vllm["server_metrics"] = server;
  }
  c.series = point_timeline(result.records, result.duration_s, s.server_metrics.interval_s, server);
  if (const auto steady = metrics.value("steady_state", json()); steady.contains("start_s")) {
    c.series["client_steady_state_s"] = {steady.at("start_s").get<double>(), steady.at("end_s").get<double>()};
  }
  if (s.save.save_result) {
    const auto name =
        named ? s.save.result_filename : result_file_name(vllm, rate, description.max_concurrency, description.date);
    say(callbacks.console, "saved: " + write_result_file(vllm, result, s.save, name).string() + "\n");
    const auto not_kept = std::count_if(result.records.begin(), result.records.end(),
                                        [](const request_record& r) { return r.text_not_kept; });
    if (not_kept > 0) {
      say(callbacks.console,
          fmt::format("{} generated texts were not kept: past --max-kept-text-bytes ({} bytes); the result file "
                      "counts them in generated_texts_not_kept\n",
                      not_kept, s.load.max_kept_text_bytes));
    }
  }
  if (!result.valid) {
    c.status = core::case_status::invalid;
    c.reason = result.invalid_reason;
    out.invalid = true;
  }
  // Not one request succeeded (server down, wrong URL or endpoint): say so in one line.
  if (!result.records.empty() && metrics.at(schema::vllm_key::completed).get<std::size_t>() == 0 &&
      !result.interrupted) {
    const auto& first = result.records.front();
    c.status = core::case_status::failed;
    c.reason = fmt::format("no request succeeded; the first failed with {}: {}", first.error_class, first.error);
    say(callbacks.progress, fmt::format("ironbench: error: no request to {}{} succeeded ({}: {})\n", first.endpoint,
                                        load.endpoint, first.error_class, first.error));
    out.invalid = true;
  }
  out.cases.push_back(std::move(c));
  out.points.push_back(vllm);
  return result.interrupted;
}

}  // namespace ironbench::serve
