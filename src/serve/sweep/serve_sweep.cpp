#include "serve/sweep/serve_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "schema/serving.hpp"
#include "serve/chat/chat_template.hpp"
#include "serve/chat/chat_template_check.hpp"
#include "serve/client/authorization.hpp"
#include "serve/measures/latency_metrics.hpp"
#include "serve/point/serve_report.hpp"
#include "serve/sweep/interactivity_points.hpp"
#include "serve/sweep/output_check.hpp"
#include "serve/sweep/sweep_strategies.hpp"
#include "serve/workload/adapter_check.hpp"
#include "serve/workload/arrival_schedule.hpp"
#include "serve/workload/client_memory.hpp"
#include "serve/workload/request_kinds.hpp"

namespace ironbench::serve {
namespace {

// --tokenizer names tokenizer.json or the directory holding it.
std::filesystem::path tokenizer_file(const std::string& tokenizer) {
  auto path = std::filesystem::path(tokenizer);
  if (std::filesystem::is_directory(path)) path /= "tokenizer.json";
  return path;
}

// --header "Name: value": a line break in it would send headers of its own (its value is not
// quoted in the messages: it may be a secret).
void check_header(const std::string& header) {
  if (header.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
    throw usage_error(
        "--header: a header may not hold a line break (CR or LF) or a NUL byte: it would add headers of its own");
  }
  const auto colon = header.find(':');
  if (colon == std::string::npos) throw usage_error(fmt::format("--header takes 'Name: value', not '{}'", header));
  const auto name = header.substr(0, colon);
  if (!is_http_field_name(name)) {
    throw usage_error(fmt::format(
        "--header: '{}' is not a header name (letters, digits and !#$%&'*+-.^_`|~, before the colon)", name));
  }
}

void check_selection(const metric_selection& selection) {
  for (const auto& m : selection.metrics) {
    if (!find_latency_metric(m)) {
      throw usage_error(fmt::format("--percentile-metrics: unknown metric '{}' ({})", m,
                                    latency_metric_names(metric_use::any, ", ")));
    }
  }
  for (double p : selection.percentiles) {
    if (!(p > 0 && p < 100)) throw usage_error("--metric-percentiles must be between 0 and 100");
  }
}

// --duration, --grace-period and the ramp-up (serve_sweep.hpp: check_sweep_settings).
void check_time_bound(const sweep_settings& s) {
  const auto& load = s.load;
  const auto days = max_schedule_s / 86400;
  if (!(load.duration_s >= 0 && load.duration_s <= max_schedule_s)) {
    throw usage_error(fmt::format("--duration must be positive and at most {:g} days", days));
  }
  if (!(load.grace_s >= 0 && load.grace_s <= max_schedule_s)) {
    throw usage_error(fmt::format("--grace-period must be from 0 to {:g} days", days));
  }
  if (load.duration_s > 0 && s.search) {
    throw usage_error("--duration does not apply to --search: each probe's length is --search-probe-duration");
  }
  if (load.duration_s > 0 && s.ranks.several()) {
    throw usage_error("--duration takes one client process (each rank would end on its own clock)");
  }
  if (!load.ramp.enabled()) return;
  check_ramp_up(load.ramp);
  if (s.rates.size() != 1 || !std::isinf(s.rates.front())) {
    throw usage_error(
        "--ramp-up-strategy replaces --request-rate: the rate rises from --ramp-up-start-rps to --ramp-up-end-rps "
        "(leave --request-rate out)");
  }
  if (s.dataset_name == "trace") {
    throw usage_error("--ramp-up-strategy does not apply to --dataset-name trace: the trace's times are the schedule");
  }
  if (s.search)
    throw usage_error("--ramp-up-strategy does not apply to --search: the search chooses each probe's load");
}

}  // namespace

std::int64_t timed_point_requests(const load_settings& load, std::int64_t cap) {
  if (!(load.duration_s > 0) || cap < 1) return cap;
  if (!load.ramp.enabled() && std::isinf(load.request_rate)) return cap;
  const auto times = timed_arrival_times(load.duration_s, static_cast<std::size_t>(cap), load.request_rate, load.ramp,
                                         load.burstiness, load.seed);
  // At least one: a point whose rate expects less than one arrival still sends its first at 0.
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(times.size()));
}

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
  for (const auto& h : s.load.headers) check_header(h);
  if (s.load.max_response_bytes < 0) throw usage_error("--max-response-bytes must not be negative (0: no limit)");
  if (s.load.max_kept_text_bytes < 0) throw usage_error("--max-kept-text-bytes must not be negative (0: no limit)");
  if (s.chat_template != "auto" && s.chat_template != "none") {
    if (s.body.api != openai_api::chat) {
      throw usage_error(
          "--chat-template applies to /v1/chat/completions (--endpoint); completions prompts are sent as they are");
    }
    if (s.tokenizer.empty())
      throw usage_error("--chat-template needs --tokenizer to count the rendered prompt's tokens");
    if (!std::filesystem::exists(s.chat_template)) {
      throw usage_error(fmt::format("--chat-template: {} not found", s.chat_template));
    }
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
  if (s.num_warmups < 0) throw usage_error(fmt::format("--num-warmups must be 0 or more, not {}", s.num_warmups));
  if (s.num_prompts_per_concurrency < 0) throw usage_error("--num-prompts-per-concurrency must be 0 or more");
  if (!(s.max_failed_share >= 0 && s.max_failed_share <= 1)) {
    throw usage_error("--max-failed-share must be from 0 to 1 (the share of a point's requests that may fail)");
  }
  check_time_bound(s);
  // A rate so low that the point's schedule could not end (its expected span; the schedule
  // itself is checked again when it is drawn). A point bounded by time ends at its duration.
  for (double c : s.load.duration_s > 0 ? std::vector<double>{} : s.concurrencies) {
    const double count = s.num_prompts_per_concurrency > 0 && c > 0
                             ? static_cast<double>(s.num_prompts_per_concurrency) * c
                             : static_cast<double>(s.num_prompts);
    for (double r : s.rates) {
      if (r > 0 && !((count - 1) / r <= max_schedule_s)) {
        throw usage_error(
            fmt::format("--request-rate {:g}: {:g} requests would take {:.3g} s to send; a point's "
                        "schedule may last {:g} days at most",
                        r, count, (count - 1) / r, max_schedule_s / 86400));
      }
    }
  }
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
  for (const auto& url : s.server_metrics.gpu_urls) {
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      throw usage_error(fmt::format("--gpu-metrics-url must start with http:// or https:// ('{}')", url));
    }
  }
  if (!(s.server_metrics.interval_s >= 0.05)) throw usage_error("--metrics-interval must be at least 50ms");
  if (s.gpus && *s.gpus < 1) throw usage_error(fmt::format("--gpus must be at least 1, not {}", *s.gpus));
  if (s.at_interactivity && !(*s.at_interactivity > 0 && std::isfinite(*s.at_interactivity))) {
    throw usage_error("--at-interactivity takes a positive number of tokens/s per user");
  }
  if (!s.check_outputs.empty()) require_greedy(s.body.extra);
  if (s.search) {
    if (s.objectives.empty()) throw usage_error("--search needs --slo (the objectives the load must meet)");
    const bool by_rate = s.search->axis == search_axis::rate;
    if ((by_rate ? s.concurrencies : s.rates).size() != 1) {
      throw usage_error(by_rate
                            ? "--search rate takes one --max-concurrency (the rate is what is searched)"
                            : "--search concurrency takes one --request-rate (the concurrency is what is searched)");
    }
    check_search_settings(*s.search);
  }
}

namespace {

// The chat template chat prompts are counted through: --chat-template's file, or with "auto"
// the tokenizer's own (none without a tokenizer, or on /v1/completions).
std::shared_ptr<const chat::chat_template> chat_template_of(const sweep_settings& s, bool have_tokenizer) {
  if (s.chat_template == "none" || s.body.api != openai_api::chat || !have_tokenizer) return nullptr;
  std::optional<chat::chat_template> found;
  if (s.chat_template != "auto") {
    found = chat::chat_template::load(s.chat_template);
  } else {
    found = chat::chat_template::find_for_tokenizer(tokenizer_file(s.tokenizer));
  }
  if (!found) return nullptr;
  chat::require_rendered_content(*found);
  return std::make_shared<const chat::chat_template>(std::move(*found));
}

}  // namespace

std::uint64_t point_seed(std::uint64_t seed, std::uint64_t point) {
  if (point == 0) return seed;
  // splitmix64 of the seed and the point: distinct, unrelated seeds per point.
  std::uint64_t z = seed + point * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

sweep_outcome run_sweep(const sweep_settings& given, const std::atomic<bool>* cancel,
                        const sweep_callbacks& callbacks) {
  check_sweep_settings(given);
  check_client_memory(given, host_available_memory());
  check_request_kind(given, host_available_memory());
  auto s = given;
  if (!s.objectives.empty()) require_slo_metrics(s.objectives, s.selection);
  prepare_result_dir(s.save);
  auto load = s.load;
  normalize_base_urls(load.base_urls);
  // The result file's generated_texts: kept only where a result file is written, or compared.
  if (!s.check_outputs.empty())
    s.loaded_reference = std::make_shared<const output_reference>(load_output_reference(s.check_outputs));
  load.keep_generated_text = (s.save.save_result && s.save.save_detailed) || s.loaded_reference != nullptr;
  std::unique_ptr<bpe_tokenizer> tokenizer;
  if (!s.tokenizer.empty()) {
    tokenizer = bpe_tokenizer::load(tokenizer_file(s.tokenizer).string());
    load.tokenizer = tokenizer.get();
  }
  const auto authorization = choose_authorization(load.headers, s.url_authorization, s.api_key_env);
  // --lora-modules: every adapter must be one the server serves (adapter_check.hpp).
  if (s.check_adapters) say(callbacks.progress, check_adapters_listed(load, s.lora));
  // Random token ids come from the tokenizer's vocabulary when there is one (as vLLM draws
  // them), else from [100, 32000).
  const std::int64_t vocab = tokenizer && tokenizer->vocab_size() > 200
                                 ? static_cast<std::int64_t>(tokenizer->vocab_size())
                                 : random_dataset{}.vocab_size;
  const auto chat = chat_template_of(s, tokenizer != nullptr);
  sweep_run run{s, cancel, callbacks, load, std::move(tokenizer), vocab, chat, false, {}};
  run.single_point = !s.search && s.concurrencies.size() * s.rates.size() == 1;
  // Embeddings, rerank, score: each --inputs-per-request value is a sweep of its own.
  const auto batches = is_pooling(load.kind) ? s.pooling.inputs_per_request : std::vector<std::int64_t>{1};
  if (batches.size() > 1) run.single_point = false;
  for (const auto inputs : batches) {
    run.load.inputs_per_request = inputs;
    if (s.search) {
      run_search(run);
    } else {
      run_grid(run);
    }
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
                      limit.statistic, limit.metric, limit.max_ms,
                      core::json_text(p.at(schema::vllm_key::max_concurrency)),
                      core::json_text(p.at(schema::vllm_key::request_rate)),
                      p.at(schema::vllm_key::output_throughput).get<double>()));
      out.settings["best_under_itl_limit"] = best;
    }
  }
  // Throughput (per GPU) against interactivity: the frontier, and the reading asked for.
  auto curve = interactivity_curve(out.cases, s.gpus, s.at_interactivity);
  say(callbacks.console, curve.console);
  if (!curve.settings.is_null()) out.settings["interactivity_curve"] = std::move(curve.settings);
  if (curve.at_case) out.cases.push_back(std::move(*curve.at_case));
  if (s.gpus) out.settings["gpus"] = *s.gpus;
  if (s.ranks.several()) out.settings["client_ranks"] = s.ranks.size;
  out.settings["authorization"] = authorization;
  out.settings["endpoints"] = load.base_urls;
  if (s.body.api == openai_api::chat) out.settings["chat_template"] = chat ? chat->path().string() : "none";
  out.settings["prompts_per_point"] = s.reuse_prompts || s.loaded_reference ? "reused" : "fresh";
  return out;
}

}  // namespace ironbench::serve
