#include "serve/serve_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "core/utc_time.hpp"
#include "schema/serving.hpp"
#include "serve/client_ranks.hpp"
#include "serve/metrics/engine_metric_names.hpp"
#include "serve/metrics/metrics_scraper.hpp"
#include "serve/metrics/server_metrics_summary.hpp"
#include "serve/point_timeline.hpp"
#include "serve/progress_line.hpp"
#include "serve/saturation.hpp"
#include "serve/serve_report.hpp"

namespace ironbench::serve {
namespace {

// --tokenizer names tokenizer.json or the directory holding it.
std::filesystem::path tokenizer_file(const std::string& tokenizer) {
  auto path = std::filesystem::path(tokenizer);
  if (std::filesystem::is_directory(path)) path /= "tokenizer.json";
  return path;
}

void say(const std::function<void(const std::string&)>& sink, const std::string& line) {
  if (sink) sink(line);
}

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
  for (const auto& name : schema::serving_headline_metrics()) point.values[name] = metrics.value(name, 0.0);
  point.failed = metrics.at(schema::vllm_key::failed).get<double>();
  auto c = schema::serving_case(point);
  for (const auto& [name, value] : server_values) {
    c.metrics.push_back({name, value, server_metric_unit(name), "reported by the server's /metrics"});
  }
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

void check_selection(const metric_selection& selection) {
  const auto& known = schema::latency_metrics();
  for (const auto& m : selection.metrics) {
    if (std::find(known.begin(), known.end(), m) == known.end()) {
      throw usage_error(fmt::format("--percentile-metrics: unknown metric '{}' ({})", m, join(known, ", ")));
    }
  }
  for (double p : selection.percentiles) {
    if (!(p > 0 && p < 100)) throw usage_error("--metric-percentiles must be between 0 and 100");
  }
}

}  // namespace

std::vector<double> parse_sweep_values(const std::string& text, const char* flag) {
  std::vector<double> values;
  for (const auto& item : split(text)) {
    values.push_back(item == "inf" ? std::numeric_limits<double>::infinity() : parse_number(item, flag));
  }
  return values;
}

balance_policy parse_balance(const std::string& text) {
  if (text == "round-robin") return balance_policy::round_robin;
  if (text == "least-outstanding") return balance_policy::least_outstanding;
  throw usage_error(fmt::format("--balance takes round-robin or least-outstanding, not '{}'", text));
}

bool parse_receive_time(const std::string& text) {
  if (text != "kernel" && text != "read") {
    throw usage_error(fmt::format("--receive-time takes kernel or read, not '{}'", text));
  }
  return text == "kernel";
}

metric_selection parse_metric_selection(const std::string& metrics, const std::string& percentiles) {
  metric_selection selection;
  selection.metrics = split_non_empty(metrics);
  check_selection({selection.metrics, {}});
  selection.percentiles = parse_sweep_values(percentiles, "--metric-percentiles");
  check_selection(selection);
  return selection;
}

void normalize_base_urls(std::vector<std::string>& urls) {
  for (auto& url : urls) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      throw usage_error(fmt::format("--base-url must start with http:// or https:// ('{}')", url));
    }
  }
}

void check_sweep_settings(const sweep_settings& s) {
  auto urls = s.load.base_urls;
  normalize_base_urls(urls);
  if (!s.load.ca_file.empty() && !std::filesystem::is_regular_file(s.load.ca_file)) {
    throw usage_error(fmt::format("--ca-cert takes a file of PEM certificates: {} not found", s.load.ca_file));
  }
  for (const auto& h : s.load.headers) {
    if (h.find(':') == std::string::npos) throw usage_error(fmt::format("--header takes 'Name: value', not '{}'", h));
  }
  if (!s.tokenizer.empty() && !std::filesystem::exists(tokenizer_file(s.tokenizer))) {
    throw usage_error(fmt::format("--tokenizer takes a tokenizer.json file (or a directory holding one): {} not found",
                                  tokenizer_file(s.tokenizer).string()));
  }
  check_selection(s.selection);
  for (double r : s.rates) {
    if (!(r > 0)) throw usage_error("--request-rate must be positive or inf");
  }
  for (double c : s.concurrencies) {
    if (c < 0 || c != std::floor(c) || std::isinf(c)) throw usage_error("--max-concurrency takes whole numbers");
  }
  if (s.num_prompts < 1) throw usage_error("--num-prompts must be at least 1");
  const auto& dataset = dataset_named(s.dataset_name);
  if (dataset.needs_path && s.dataset_path.empty()) {
    throw usage_error(fmt::format("--dataset-name {} needs --dataset-path", s.dataset_name));
  }
  if (s.datasets.multi_turn && s.dataset_name != "sharegpt") {
    throw usage_error("--multi-turn takes --dataset-name sharegpt (or use --dataset-name conversation)");
  }
  if (s.dataset_name == "trace") {
    if (s.rates.size() != 1 || !std::isinf(s.rates.front())) {
      throw usage_error(
          "--request-rate does not apply to --dataset-name trace: the trace's times are the schedule "
          "(--trace-speed scales them)");
    }
  }
  if (!(s.load.trace_speed > 0) || std::isinf(s.load.trace_speed)) throw usage_error("--trace-speed must be positive");
  for (const auto& url : s.server_metrics.urls) {
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      throw usage_error(fmt::format("--metrics-url must start with http:// or https:// ('{}')", url));
    }
  }
  if (!(s.server_metrics.interval_s >= 0.05)) throw usage_error("--metrics-interval must be at least 50ms");
  if (s.search) {
    if (s.objectives.empty()) throw usage_error("--search needs --slo (the objectives the load must meet)");
    const bool by_rate = s.search->axis == search_axis::rate;
    if ((by_rate ? s.concurrencies : s.rates).size() != 1) {
      throw usage_error(by_rate
                            ? "--search rate takes one --max-concurrency (the rate is what is searched)"
                            : "--search concurrency takes one --request-rate (the concurrency is what is searched)");
    }
    if (!(s.search->start > 0) || !(s.search->max >= s.search->start) || std::isinf(s.search->max)) {
      throw usage_error("--search-start must be positive and at most --search-max");
    }
    if (!(s.search->precision > 0) || s.search->max_probes < 2) {
      throw usage_error("--search-precision must be positive and --search-max-probes at least 2");
    }
  }
}

namespace {

// One point: sends the warm-ups, measures `requests` (load's rate and concurrency), reports
// and saves it, and adds its case and vLLM object to `out`. True when it was interrupted.
// This rank's settings for a point: its place among the client ranks and its share of the
// concurrency.
load_settings rank_share(const load_settings& load, const client_ranks& ranks) {
  auto share = load;
  share.rank = ranks.rank;
  share.ranks = ranks.size;
  share.max_concurrency = concurrency_share(load.max_concurrency, ranks.rank, ranks.size);
  return share;
}

// Several client ranks: rank 0 gets every rank's result merged into one (the others keep
// their own, which they do not report).
load_result gather_ranks(const client_ranks& ranks, load_result mine, const load_settings& load) {
  if (!ranks.several()) return mine;
  const auto texts = ranks.gather(load_result_json(mine).dump());
  if (ranks.rank != 0) return mine;
  std::vector<load_result> all;
  for (const auto& text : texts) all.push_back(load_result_from_json(json::parse(text)));
  return merge_rank_results(all, load.base_urls);
}

bool run_point(const sweep_settings& s, const load_settings& load, std::vector<prepared_request> requests, bool named,
               const std::atomic<bool>* cancel, const sweep_callbacks& callbacks, sweep_outcome& out) {
  const double concurrency = load.max_concurrency, rate = load.request_rate;
  const auto& ranks = s.ranks;
  if (s.num_warmups > 0) {
    std::vector<prepared_request> warm(requests.begin(), requests.begin() + s.num_warmups);
    requests.erase(requests.begin(), requests.begin() + s.num_warmups);
    auto warm_settings = rank_share(load, ranks);
    warm_settings.request_rate = std::numeric_limits<double>::infinity();
    (void)run_load(warm, warm_settings, cancel);
  }
  say(callbacks.progress, fmt::format("serve: {} requests, max concurrency {}, request rate {}, {} endpoint(s)\n",
                                      requests.size(), concurrency > 0 ? fmt::format("{:g}", concurrency) : "unlimited",
                                      schema::request_rate_text(rate), load.base_urls.size()));
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
    scraper = std::make_unique<metrics_scraper>(
        scrape_settings{scrape_urls, s.server_metrics.interval_s, load.headers, load.ca_file, load.verify_tls});
  }
  const auto result = gather_ranks(ranks, run_load(requests, measured, cancel), load);
  if (ranks.rank != 0) return result.interrupted;  // rank 0 reports the point
  // The GPUs stop being watched when the load ends.
  double output_tokens = 0;
  for (const auto& r : result.records) output_tokens += r.success ? static_cast<double>(r.output_len) : 0;
  auto gpu = finish_gpu_watch(gpus, output_tokens);
  json server = nullptr;
  if (scraper) {
    server =
        summarize_server_metrics(scraper->stop(), scrape_urls, result.origin_monotonic_ns, s.server_metrics.interval_s);
  }
  if (shown) say(callbacks.progress, end_of_progress(s.live_progress));
  auto metrics = serving_metrics(result.records, result.duration_s, s.slo, s.selection);
  if (auto turns = turn_metrics(result.records); !turns.empty()) {
    metrics["turns"] = std::move(turns);
    metrics["conversation_turns_not_sent"] = result.turns_dropped;
  }
  // On a schedule, also the latency from the intended send time.
  if (!std::isinf(rate)) metrics.update(schedule_latency_metrics(result.records, s.selection));
  point_description description;
  description.date = utc_time(std::chrono::system_clock::now(), "%Y%m%d-%H%M%S");
  description.api = load.api;
  description.model = s.body.model;
  description.tokenizer = s.tokenizer;
  description.num_prompts = requests.size();
  description.request_rate = rate;
  description.burstiness = load.burstiness;
  description.max_concurrency = concurrency > 0 ? static_cast<int>(concurrency) : 0;
  auto vllm = vllm_point_json(description, metrics, result);
  if (!result.ranks.is_null()) vllm["client_ranks"] = result.ranks;
  const auto server_values = server_metric_values(server);
  for (const auto& [name, value] : server_values) vllm[name] = value;
  std::ostringstream summary;
  write_serving_summary(summary, metrics, result, s.selection);
  if (!server.is_null()) write_server_metrics_summary(summary, server);
  say(callbacks.console, summary.str());
  auto c = point_case(load, concurrency, rate, requests.size(), metrics, result, server_values);
  if (!gpus.empty()) {
    for (auto& m : gpu.metrics) {
      vllm[m.name] = m.value;
      c.metrics.push_back(std::move(m));
    }
    vllm["gpu_telemetry"] = gpu.summary;
    c.telemetry = gpu.summary;
    for (auto& series : gpu.series) {
      series["case"] = out.cases.size();  // this case's index once it is added
      out.telemetry.push_back(std::move(series));
    }
    if (gpu.summary.contains("joules_per_output_token")) {
      say(callbacks.console,
          fmt::format("GPU energy: {:.1f} J, {:.4f} J per output token, {:.2f} output tokens per J\n",
                      gpu.summary.at("energy_j").get<double>(), gpu.summary.at("joules_per_output_token").get<double>(),
                      gpu.summary.at("output_tokens_per_joule").get<double>()));
    }
  }
  c.notes["result"] = vllm.dump();
  if (!server.is_null()) {
    c.notes["server_metrics"] = server.dump();
    vllm["server_metrics"] = server;
  }
  c.series = point_timeline(result.records, result.duration_s, s.server_metrics.interval_s, server);
  if (s.save.save_result) {
    const auto name =
        named ? s.save.result_filename : result_file_name(vllm, rate, description.max_concurrency, description.date);
    say(callbacks.console, "saved: " + write_result_file(vllm, result, s.save, name).string() + "\n");
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
    say(callbacks.progress, fmt::format("ironbench: error: no request to {} succeeded ({}: {})\n", first.endpoint,
                                        first.error_class, first.error));
    out.invalid = true;
  }
  out.cases.push_back(std::move(c));
  out.points.push_back(vllm);
  return result.interrupted;
}

}  // namespace

namespace {

// The sweep's fixed state: settings, the tokenizer and what each point's dataset needs.
struct sweep_run {
  const sweep_settings& s;
  const std::atomic<bool>* cancel;
  const sweep_callbacks& callbacks;
  load_settings load;
  std::unique_ptr<bpe_tokenizer> tokenizer;
  std::int64_t vocab = 0;
  bool single_point = false;
  sweep_outcome out;

  // One point at `concurrency` x `rate`; true when it was interrupted.
  bool measure(double concurrency, double rate) {
    load.request_rate = rate;
    load.max_concurrency = static_cast<int>(concurrency);
    const std::int64_t count = s.num_prompts_per_concurrency > 0 && concurrency > 0
                                   ? s.num_prompts_per_concurrency * static_cast<std::int64_t>(concurrency)
                                   : s.num_prompts;
    const auto total = static_cast<std::size_t>(count + s.num_warmups);
    const dataset_inputs inputs{s.datasets, s.body, s.dataset_path, total, s.load.seed, tokenizer.get(), vocab};
    const bool named = !s.save.result_filename.empty() && out.points.empty() && single_point;
    return run_point(s, load, dataset_named(s.dataset_name).build(inputs), named, cancel, callbacks, out);
  }
};

// Whether the values of a sweep axis rise (0, unlimited concurrency, counts as the highest).
bool rising(std::vector<double> values) {
  for (auto& v : values) v = v == 0 ? std::numeric_limits<double>::infinity() : v;
  return std::adjacent_find(values.begin(), values.end(), std::greater_equal<>()) == values.end();
}

// Whether `cancel` is set on any rank (every rank must ask, in the same order).
bool cancelled(const sweep_run& run) {
  const bool mine = run.cancel != nullptr && run.cancel->load();
  return run.s.ranks.any(mine);
}

// Every concurrency x rate, stopping an axis of rising load where it saturates.
void run_grid(sweep_run& run) {
  const auto& s = run.s;
  const bool by_rate = s.rates.size() > 1;
  const bool judge = rising(by_rate ? s.rates : s.concurrencies);
  const bool reporting = s.ranks.rank == 0;
  std::vector<json> axis;
  for (double concurrency : s.concurrencies) {
    if (by_rate) axis.clear();
    for (double rate : s.rates) {
      if (cancelled(run)) return;
      if (s.ranks.any(run.measure(concurrency, rate))) return;
      saturation_check check;
      if (reporting) {
        axis.push_back(run.out.points.back());
        if (judge) check = detect_saturation(axis);
      }
      if (!s.ranks.rank0_says(check.saturated)) continue;
      if (reporting) {
        run.out.cases.back().notes["saturation"] = check.reason;
        run.out.settings["saturation"].push_back({{"point", run.out.points.size() - 1}, {"reason", check.reason}});
        say(run.callbacks.console, fmt::format("saturated: {}{}\n", check.reason,
                                               s.stop_at_saturation ? "; the higher loads are skipped" : ""));
      }
      if (!s.stop_at_saturation) continue;
      if (!by_rate) return;
      break;
    }
  }
}

// The case of a search's answer: the highest load that met the objectives and what the point
// at that load measured.
core::case_result limit_case(const sweep_run& run, const search_result& result) {
  const bool by_rate = run.s.search->axis == search_axis::rate;
  core::case_result c;
  c.benchmark = "serve_slo_limit";
  c.device = fmt::format("{}", fmt::join(run.load.base_urls, ","));
  c.params.set("search", std::string(by_rate ? "rate" : "concurrency"));
  c.params.set("slo", run.s.objectives.text());
  c.notes["ended"] = result.ended;
  if (!result.best) {
    c.status = core::case_status::failed;
    c.reason = fmt::format("no load met {}: {}", run.s.objectives.text(), result.ended);
    return c;
  }
  c.metrics.push_back({by_rate ? "max_request_rate" : "max_concurrency", *result.best,
                       by_rate ? "requests/s" : "requests", "the highest load that met the SLOs"});
  // Each probe is one point, in order: the best one's measurements.
  const auto first = run.out.points.size() - result.probes.size();
  for (std::size_t i = 0; i < result.probes.size(); ++i) {
    if (result.probes[i].load != *result.best || !result.probes[i].outcome.met) continue;
    const auto& point = run.out.points[first + i];
    for (const char* key : {"output_throughput", "request_throughput"}) {
      c.metrics.push_back({key, point.value(key, 0.0), schema::serving_metric_unit(key), "at that load"});
    }
  }
  return c;
}

// --search: the highest load meeting --slo, each probe a point of its own.
void run_search(sweep_run& run) {
  const auto& s = run.s;
  const auto& search = *s.search;
  const bool by_rate = search.axis == search_axis::rate;
  const auto probe = [&](double value) -> probe_outcome {
    if (cancelled(run)) return {false, false, "interrupted"};
    const bool interrupted =
        by_rate ? run.measure(s.concurrencies.front(), value) : run.measure(value, s.rates.front());
    if (s.ranks.any(interrupted)) return {false, false, "interrupted"};
    probe_outcome o;
    if (s.ranks.rank == 0) {
      auto& c = run.out.cases.back();
      if (c.status != core::case_status::valid) {
        o = {false, false, c.reason};
      } else {
        const auto verdict = judge_slo(run.out.points.back(), s.objectives);
        c.notes["slo"] = verdict.met ? "met" : "missed: " + verdict.why;
        say(run.callbacks.console, fmt::format("SLO probe {} {:g}: {}\n", by_rate ? "request rate" : "max concurrency",
                                               value, verdict.met ? "met" : "missed (" + verdict.why + ")"));
        o = {true, verdict.met, verdict.why};
      }
    }
    // The other ranks follow rank 0's verdict.
    o.measured = s.ranks.rank0_says(o.measured);
    o.met = s.ranks.rank0_says(o.met);
    return o;
  };
  const auto result = search_limit(search, probe);
  if (s.ranks.rank != 0) return;
  json probes = json::array();
  for (const auto& p : result.probes) {
    probes.push_back(
        {{"load", p.load}, {"met", p.outcome.met}, {"measured", p.outcome.measured}, {"why", p.outcome.why}});
  }
  run.out.settings["slo_search"] = {
      {"axis", by_rate ? "rate" : "concurrency"},
      {"slo", s.objectives.text()},
      {"probes", probes},
      {"best", result.best ? json(*result.best) : json(nullptr)},
      {"lowest_failing", result.lowest_failing ? json(*result.lowest_failing) : json(nullptr)},
      {"ended", result.ended}};
  run.out.cases.push_back(limit_case(run, result));
  if (!result.best) run.out.invalid = true;
  const auto unit = by_rate ? " requests/s" : " in flight";
  say(run.callbacks.console, result.best
                                 ? fmt::format("SLO search ({}): highest load meeting {}: {:g}{}; {} ({} probes)\n",
                                               by_rate ? "rate" : "concurrency", s.objectives.text(), *result.best,
                                               unit, result.ended, result.probes.size())
                                 : fmt::format("SLO search ({}): no load met {}: {}\n",
                                               by_rate ? "rate" : "concurrency", s.objectives.text(), result.ended));
}

}  // namespace

sweep_outcome run_sweep(const sweep_settings& given, const std::atomic<bool>* cancel,
                        const sweep_callbacks& callbacks) {
  check_sweep_settings(given);
  auto s = given;
  if (!s.objectives.empty()) require_slo_metrics(s.objectives, s.selection);
  prepare_result_dir(s.save);
  auto load = s.load;
  normalize_base_urls(load.base_urls);
  std::unique_ptr<bpe_tokenizer> tokenizer;
  if (!s.tokenizer.empty()) {
    tokenizer = bpe_tokenizer::load(tokenizer_file(s.tokenizer).string());
    load.tokenizer = tokenizer.get();
  }
  bool authorized = false;
  if (const char* key = std::getenv(s.api_key_env.c_str()); key != nullptr && *key != '\0') {
    load.headers.push_back(std::string("Authorization: Bearer ") + key);  // never stored in results
    authorized = true;
  }
  // Random token ids come from the tokenizer's vocabulary when there is one (as vLLM draws
  // them), else from [100, 32000).
  const std::int64_t vocab = tokenizer && tokenizer->vocab_size() > 200
                                 ? static_cast<std::int64_t>(tokenizer->vocab_size())
                                 : random_dataset{}.vocab_size;
  sweep_run run{s, cancel, callbacks, load, std::move(tokenizer), vocab, false, {}};
  run.single_point = !s.search && s.concurrencies.size() * s.rates.size() == 1;
  if (s.search) {
    run_search(run);
  } else {
    run_grid(run);
  }
  auto out = std::move(run.out);
  const auto& limit = s.limit;
  if (limit.max_ms > 0 && !out.points.empty()) {
    const int best = best_point_under_limit(out.points, limit.metric, limit.statistic, limit.max_ms);
    if (best < 0) {
      say(callbacks.console,
          fmt::format("no point kept {} {} under {} ms\n", limit.statistic, limit.metric, limit.max_ms));
    } else {
      const auto& p = out.points[static_cast<std::size_t>(best)];
      say(callbacks.console,
          fmt::format("best under {} {} <= {} ms: max concurrency {}, request rate {}: {:.1f} output tok/s\n",
                      limit.statistic, limit.metric, limit.max_ms, p.at(schema::vllm_key::max_concurrency).dump(),
                      p.at(schema::vllm_key::request_rate).dump(),
                      p.at(schema::vllm_key::output_throughput).get<double>()));
      out.settings["best_under_itl_limit"] = best;
    }
  }
  if (s.ranks.several()) out.settings["client_ranks"] = s.ranks.size;
  out.settings["authorization"] = authorized ? "API key from $" + s.api_key_env : "none";
  out.settings["endpoints"] = load.base_urls;
  return out;
}

}  // namespace ironbench::serve
