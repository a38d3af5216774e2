// ironbench serve: an LLM serving load generator with vLLM `bench serve`'s flags, metrics and
// result files, one event loop for every stream, and a verdict on its own timing.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"
#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "core/utc_time.hpp"
#include "core/units.hpp"
#include "report/output.hpp"
#include "serve/datasets.hpp"
#include "serve/load_generator.hpp"
#include "serve/serve_report.hpp"

namespace ironbench::cli {
namespace {

struct serve_arguments {
  std::vector<std::string> base_urls;
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string endpoint = "/v1/completions";
  std::string model = "ironbench-sim";
  std::string tokenizer;
  std::string dataset_name = "random";
  std::string dataset_path;
  std::int64_t random_input_len = 1024, random_output_len = 128, random_prefix_len = 0, custom_output_len = 256;
  std::int64_t sharegpt_output_len = 0;
  serve::prefix_repetition_dataset prefix_repetition;
  double random_range_ratio = 0;
  std::int64_t num_prompts = 1000, num_prompts_per_concurrency = 0;
  std::string max_concurrency, request_rate = "inf";
  double burstiness = 1.0;
  bool ignore_eos = false, no_stream = false;
  std::string percentile_metrics = "ttft,tpot,itl", metric_percentiles = "99";
  std::vector<std::string> goodput;
  std::uint64_t seed = 0;
  int num_warmups = 0;
  bool save_result = false, save_detailed = false;
  std::string result_dir = ".", result_filename;
  std::vector<std::string> headers;
  std::string extra_body, api_key_env = "OPENAI_API_KEY", balance = "round-robin";
  std::string timeout = "600s", stall_timeout = "120s";
  double max_itl_ms = 0;
  std::string itl_limit_statistic = "median", itl_limit_metric = "itl";
  double max_lateness_ms = 1.0;
  std::string receive_time = "kernel";
  std::string ca_cert;
  bool insecure = false;
  report::output_options outputs;
};

std::vector<double> parse_number_list(const std::string& text, const char* flag) {
  std::vector<double> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const auto item = text.substr(start, end - start);
    values.push_back(item == "inf" ? std::numeric_limits<double>::infinity() : parse_number(item, flag));
    start = end + 1;
  }
  return values;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    if (end > start) items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::string rate_text(double rate) { return std::isinf(rate) ? "inf" : fmt::format("{:g}", rate); }

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  if (!out || !(out << text)) throw error(fmt::format("cannot write {}", path.string()));
}

int execute(const serve_arguments& a, const invocation& call) {
  // ---- settings, all checked before anything is sent
  serve::load_settings load;
  load.base_urls = a.base_urls.empty() ? std::vector<std::string>{fmt::format("http://{}:{}", a.host, a.port)} : a.base_urls;
  for (auto& url : load.base_urls) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      throw usage_error(fmt::format("--base-url must start with http:// or https:// ('{}')", url));
    }
  }
  load.endpoint = a.endpoint;
  load.api = a.endpoint.find("chat") != std::string::npos ? serve::openai_api::chat : serve::openai_api::completions;
  load.stream = !a.no_stream;
  load.burstiness = a.burstiness;
  load.seed = a.seed;
  load.timeout_s = parse_duration_s(a.timeout, "--timeout");
  load.stall_timeout_s = parse_duration_s(a.stall_timeout, "--stall-timeout");
  load.max_lateness_p99_ms = a.max_lateness_ms;
  if (a.receive_time != "kernel" && a.receive_time != "read") {
    throw usage_error(fmt::format("--receive-time takes kernel or read, not '{}'", a.receive_time));
  }
  load.kernel_receive_stamps = a.receive_time == "kernel";
  if (!a.ca_cert.empty() && !std::filesystem::is_regular_file(a.ca_cert)) {
    throw usage_error(fmt::format("--ca-cert takes a file of PEM certificates: {} not found", a.ca_cert));
  }
  load.ca_file = a.ca_cert;
  load.verify_tls = !a.insecure;
  if (a.balance == "round-robin") load.balance = serve::balance_policy::round_robin;
  else if (a.balance == "least-outstanding") load.balance = serve::balance_policy::least_outstanding;
  else throw usage_error(fmt::format("--balance takes round-robin or least-outstanding, not '{}'", a.balance));
  for (const auto& h : a.headers) {
    if (h.find(':') == std::string::npos) throw usage_error(fmt::format("--header takes 'Name: value', not '{}'", h));
    load.headers.push_back(h);
  }
  bool authorized = false;
  if (const char* key = std::getenv(a.api_key_env.c_str()); key != nullptr && *key != '\0') {
    load.headers.push_back(std::string("Authorization: Bearer ") + key);  // never stored in results
    authorized = true;
  }
  std::unique_ptr<serve::bpe_tokenizer> tokenizer;
  if (!a.tokenizer.empty()) {
    auto path = std::filesystem::path(a.tokenizer);
    if (std::filesystem::is_directory(path)) path /= "tokenizer.json";
    if (!std::filesystem::exists(path)) {
      throw usage_error(fmt::format("--tokenizer takes a tokenizer.json file (or a directory holding one): {} not found",
                                    path.string()));
    }
    tokenizer = serve::bpe_tokenizer::load(path.string());
    load.tokenizer = tokenizer.get();
  }
  serve::body_settings body;
  body.model = a.model;
  body.api = load.api;
  body.stream = load.stream;
  body.ignore_eos = a.ignore_eos;
  if (!a.extra_body.empty()) {
    body.extra = json::parse(a.extra_body, nullptr, false);
    if (body.extra.is_discarded() || !body.extra.is_object()) throw usage_error("--extra-body must be a JSON object");
  }
  serve::metric_selection selection;
  selection.metrics = split(a.percentile_metrics);
  for (const auto& m : selection.metrics) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el") {
      throw usage_error(fmt::format("--percentile-metrics: unknown metric '{}' (ttft, tpot, itl, e2el)", m));
    }
  }
  selection.percentiles = parse_number_list(a.metric_percentiles, "--metric-percentiles");
  for (double p : selection.percentiles) {
    if (!(p > 0 && p < 100)) throw usage_error("--metric-percentiles must be between 0 and 100");
  }
  const auto slo = serve::parse_goodput(a.goodput);
  const auto rates = parse_number_list(a.request_rate, "--request-rate");
  for (double r : rates) {
    if (!(r > 0)) throw usage_error("--request-rate must be positive or inf");
  }
  std::vector<double> concurrencies = a.max_concurrency.empty() ? std::vector<double>{0} : parse_number_list(a.max_concurrency, "--max-concurrency");
  for (double c : concurrencies) {
    if (c < 0 || c != std::floor(c) || std::isinf(c)) throw usage_error("--max-concurrency takes whole numbers");
  }
  if (a.num_prompts < 1) throw usage_error("--num-prompts must be at least 1");
  if (a.dataset_name != "random" && a.dataset_name != "custom" && a.dataset_name != "sharegpt" &&
      a.dataset_name != "prefix_repetition") {
    throw usage_error(fmt::format("--dataset-name '{}' is not available (random, sharegpt, custom, prefix_repetition)",
                                  a.dataset_name));
  }
  if ((a.dataset_name == "custom" || a.dataset_name == "sharegpt") && a.dataset_path.empty()) {
    throw usage_error(fmt::format("--dataset-name {} needs --dataset-path", a.dataset_name));
  }
  const auto targets = report::parse_targets(a.outputs);
  std::ostream& console = report::console_stream(targets);
  report::prepare_results_dir(a.outputs);
  if (a.save_result) {
    std::error_code ec;
    std::filesystem::create_directories(a.result_dir, ec);
    if (ec) throw usage_error(fmt::format("cannot create --result-dir {}: {}", a.result_dir, ec.message()));
  }

  const auto& cancel = install_interrupt_flag();
  const auto host = session::detect_live_host();
  const auto start = std::chrono::system_clock::now();
  auto run = session::start_run(call.argv, host, start);
  run.devices = {host.devices.devices.front()};
  std::vector<json> points;
  bool any_invalid = false;
  for (double concurrency : concurrencies) {
    for (double rate : rates) {
      if (cancel.load()) break;
      load.request_rate = rate;
      load.max_concurrency = static_cast<int>(concurrency);
      const std::int64_t count = a.num_prompts_per_concurrency > 0 && concurrency > 0
                                     ? a.num_prompts_per_concurrency * static_cast<std::int64_t>(concurrency)
                                     : a.num_prompts;
      const auto total = static_cast<std::size_t>(count + a.num_warmups);
      // Random token ids come from the tokenizer's vocabulary when there is one (as vLLM
      // draws them), else from [100, 32000).
      const std::int64_t vocab = tokenizer && tokenizer->vocab_size() > 200
                                     ? static_cast<std::int64_t>(tokenizer->vocab_size())
                                     : serve::random_dataset{}.vocab_size;
      auto prefix_repetition = a.prefix_repetition;
      prefix_repetition.vocab_size = vocab;
      auto requests =
          a.dataset_name == "custom"     ? serve::make_custom_requests(a.dataset_path, a.custom_output_len, body, total)
          : a.dataset_name == "sharegpt" ? serve::make_sharegpt_requests(a.dataset_path, a.sharegpt_output_len, body,
                                                                         total, a.seed, tokenizer.get())
          : a.dataset_name == "prefix_repetition"
              ? serve::make_prefix_repetition_requests(prefix_repetition, body, total, a.seed)
                                         : serve::make_random_requests({a.random_input_len, a.random_output_len,
                                                                        a.random_range_ratio, a.random_prefix_len, vocab},
                                                                       body, total, a.seed);
      if (a.num_warmups > 0) {
        std::vector<serve::prepared_request> warm(requests.begin(), requests.begin() + a.num_warmups);
        requests.erase(requests.begin(), requests.begin() + a.num_warmups);
        auto warm_settings = load;
        warm_settings.request_rate = std::numeric_limits<double>::infinity();
        (void)serve::run_load(warm, warm_settings, &cancel);
      }
      std::cerr << fmt::format("serve: {} requests, max concurrency {}, request rate {}, {} endpoint(s)\n",
                               requests.size(), concurrency > 0 ? fmt::format("{:g}", concurrency) : "unlimited",
                               rate_text(rate), load.base_urls.size());
      const auto result = serve::run_load(requests, load, &cancel);
      auto metrics = serve::serving_metrics(result.records, result.duration_s, slo, selection);
      const auto date = utc_time(std::chrono::system_clock::now(), "%Y%m%d-%H%M%S");
      json vllm = {{"date", date},
                   {"backend", load.api == serve::openai_api::chat ? "openai-chat" : "openai"},
                   {"model_id", a.model},
                   {"tokenizer_id", a.tokenizer.empty() ? json(nullptr) : json(a.tokenizer)},
                   {"num_prompts", requests.size()},
                   {"request_rate", std::isinf(rate) ? json("inf") : json(rate)},
                   {"burstiness", a.burstiness},
                   {"max_concurrency", concurrency > 0 ? json(static_cast<int>(concurrency)) : json(nullptr)}};
      for (const auto& [key, value] : metrics.items()) vllm[key] = value;
      vllm["client"] = {{"send_lateness_p50_ms", result.lateness_p50_ms},
                        {"send_lateness_p99_ms", result.lateness_p99_ms},
                        {"send_lateness_max_ms", result.lateness_max_ms},
                        {"cpu_share_of_one_core", result.client_cpu},
                        {"kernel_receive_stamp_share", result.kernel_stamped_share},
                        {"socket_wait_p50_ms", result.socket_wait_p50_ms},
                        {"socket_wait_p99_ms", result.socket_wait_p99_ms},
                        {"token_events_read_with_a_later_one", result.token_events_timed_together},
                        {"valid", result.valid},
                        {"invalid_reason", result.invalid_reason},
                        {"interrupted", result.interrupted},
                        {"not_sent", result.not_sent}};
      vllm["endpoints"] = result.endpoints;
      if (!result.ground_truth.empty()) vllm["client"]["ground_truth"] = result.ground_truth;
      vllm["token_counts"] = tokenizer ? "output tokens from usage.completion_tokens, else from the tokenizer; "
                                         "output_token_count_mismatches counts requests where the two differ"
                                       : "output tokens from usage.completion_tokens; without usage, the count of token "
                                         "events with text (approximate: no --tokenizer); prompt lengths of text prompts are word "
                                         "counts (approximate)";
      serve::write_serving_summary(console, metrics, result, selection);
      if (a.save_result) {
        auto file = vllm;
        if (a.save_detailed) {
          const auto detailed = serve::detailed_arrays(result.records);
          for (const auto& [key, value] : detailed.items()) file[key] = value;
        }
        const auto name = !a.result_filename.empty() && points.empty() && concurrencies.size() * rates.size() == 1
                              ? a.result_filename
                              : fmt::format("{}-{}qps-c{}-{}.json", file["backend"].get<std::string>(), rate_text(rate),
                                            concurrency > 0 ? fmt::format("{:g}", concurrency) : "inf", date);
        const auto path = std::filesystem::path(a.result_dir) / name;
        write_file(path, file.dump(2) + "\n");
        if (a.save_detailed) {
          write_file(path.string() + ".requests.jsonl", serve::request_records_jsonl(result.records));
        }
        console << "saved: " << path.string() << '\n';
      }
      core::case_result c;
      c.benchmark = "serve";
      c.device = fmt::format("{}", fmt::join(load.base_urls, ","));
      c.params.set("max_concurrency", static_cast<std::int64_t>(concurrency));
      c.params.set("request_rate", rate_text(rate));
      c.params.set("num_prompts", static_cast<std::int64_t>(requests.size()));
      for (const char* key : {"request_throughput", "output_throughput", "total_token_throughput", "median_ttft_ms",
                              "median_tpot_ms", "median_itl_ms", "mean_e2el_ms"}) {
        c.metrics.push_back({key, metrics.value(key, 0.0), "", "as vLLM bench serve defines it"});
      }
      c.metrics.push_back({"failed", metrics.at("failed").get<double>(), "requests", "failed requests"});
      c.metrics.push_back({"send_lateness_p99_ms", result.lateness_p99_ms, "ms", "client's lateness against its schedule"});
      c.notes["result"] = vllm.dump();
      if (!result.valid) {
        c.status = core::case_status::invalid;
        c.reason = result.invalid_reason;
        any_invalid = true;
      }
      // Not one request succeeded (server down, wrong URL or endpoint): say so in one line.
      if (!result.records.empty() && metrics.at("completed").get<std::size_t>() == 0 && !result.interrupted) {
        const auto& first = result.records.front();
        c.status = core::case_status::failed;
        c.reason = fmt::format("no request succeeded; the first failed with {}: {}", first.error_class, first.error);
        std::cerr << fmt::format("ironbench: error: no request to {} succeeded ({}: {})\n", first.endpoint,
                                 first.error_class, first.error);
        any_invalid = true;
      }
      run.cases.push_back(std::move(c));
      points.push_back(vllm);
      if (result.interrupted) break;
    }
  }
  if (a.max_itl_ms > 0 && !points.empty()) {
    const int best = serve::best_point_under_limit(points, a.itl_limit_metric, a.itl_limit_statistic, a.max_itl_ms);
    if (best < 0) {
      console << fmt::format("no point kept {} {} under {} ms\n", a.itl_limit_statistic, a.itl_limit_metric, a.max_itl_ms);
    } else {
      const auto& p = points[static_cast<std::size_t>(best)];
      console << fmt::format("best under {} {} <= {} ms: max concurrency {}, request rate {}: {:.1f} output tok/s\n",
                               a.itl_limit_statistic, a.itl_limit_metric, a.max_itl_ms, p.at("max_concurrency").dump(),
                               p.at("request_rate").dump(), p.at("output_throughput").get<double>());
      run.settings["best_under_itl_limit"] = best;
    }
  }
  session::finish_run(run);
  run.settings["authorization"] = authorized ? "API key from $" + a.api_key_env : "none";
  run.settings["endpoints"] = load.base_urls;
  if (cancel.load()) {
    run.status = core::run_status::interrupted;
    run.status_reason = "interrupted; the requests measured so far are kept";
  }
  core::settle_run_status(run);
  report::write_run_outputs(run, targets, a.outputs, host.fingerprint.hostname, start, std::cout, [](std::ostream&) {});
  if (run.status == core::run_status::interrupted) return exit_interrupted;
  return any_invalid ? exit_failure : exit_ok;
}

}  // namespace

command_action add_serve_command(CLI::App& app, const invocation& call) {
  auto* c = app.add_subcommand("serve", "LLM serving load generator (vLLM bench serve's flags and metrics)");
  auto a = std::make_shared<serve_arguments>();
  c->add_option("--base-url", a->base_urls, "Server URL, e.g. http://127.0.0.1:8000 (repeat for replicas)");
  c->add_option("--host", a->host, "Server host (without --base-url)")->capture_default_str();
  c->add_option("--port", a->port, "Server port (without --base-url)")->capture_default_str();
  c->add_option("--endpoint", a->endpoint, "/v1/completions or /v1/chat/completions")->capture_default_str();
  c->add_option("--model", a->model, "Model name sent in every request")->capture_default_str();
  c->add_option("--tokenizer", a->tokenizer, "A Hugging Face tokenizer.json (or its directory): counts output tokens");
  c->add_option("--dataset-name", a->dataset_name, "random, sharegpt, prefix_repetition, or custom (JSONL of {\"prompt\": ...})")->capture_default_str();
  c->add_option("--dataset-path", a->dataset_path, "File of the custom dataset");
  c->add_option("--random-input-len", a->random_input_len, "Prompt tokens (random dataset)")->capture_default_str();
  c->add_option("--random-output-len", a->random_output_len, "Output tokens (max_tokens)")->capture_default_str();
  c->add_option("--random-range-ratio", a->random_range_ratio, "Lengths vary uniformly by this ratio")->capture_default_str();
  c->add_option("--random-prefix-len", a->random_prefix_len, "Tokens of a prefix shared by every prompt")->capture_default_str();
  c->add_option("--custom-output-len", a->custom_output_len, "max_tokens of custom prompts")->capture_default_str();
  c->add_option("--prefix-repetition-prefix-len", a->prefix_repetition.prefix_len, "Tokens of each shared prefix")->capture_default_str();
  c->add_option("--prefix-repetition-suffix-len", a->prefix_repetition.suffix_len, "Random tokens after the prefix")->capture_default_str();
  c->add_option("--prefix-repetition-num-prefixes", a->prefix_repetition.num_prefixes, "Distinct prefixes")->capture_default_str();
  c->add_option("--prefix-repetition-output-len", a->prefix_repetition.output_len, "max_tokens")->capture_default_str();
  c->add_option("--sharegpt-output-len", a->sharegpt_output_len, "max_tokens of ShareGPT prompts (0: the reference reply's length)");
  c->add_option("--num-prompts", a->num_prompts, "Requests per point")->capture_default_str();
  c->add_option("--num-prompts-per-concurrency", a->num_prompts_per_concurrency, "Requests per point = this x max concurrency");
  c->add_option("--max-concurrency", a->max_concurrency, "Requests in flight at most; a list sweeps (4,8,16,...)");
  c->add_option("--request-rate", a->request_rate, "Requests per second (inf: all at once); a list sweeps")->capture_default_str();
  c->add_option("--burstiness", a->burstiness, "Gamma shape of the gaps (1: Poisson)")->capture_default_str();
  c->add_flag("--ignore-eos", a->ignore_eos, "Ask the server to ignore end-of-sequence");
  c->add_flag("--no-stream", a->no_stream, "Non-streaming requests (TTFT = E2EL)");
  c->add_option("--percentile-metrics", a->percentile_metrics, "Metrics with percentiles: ttft,tpot,itl,e2el")->capture_default_str();
  c->add_option("--metric-percentiles", a->metric_percentiles, "Percentiles, e.g. 50,90,99")->capture_default_str();
  c->add_option("--goodput", a->goodput, "SLOs: ttft:MS tpot:MS e2el:MS");
  c->add_option("--seed", a->seed, "Seed of prompts and arrivals")->capture_default_str();
  c->add_option("--num-warmups", a->num_warmups, "Requests sent first and not measured")->capture_default_str();
  c->add_flag("--save-result", a->save_result, "Write vLLM's result JSON to --result-dir");
  c->add_flag("--save-detailed", a->save_detailed, "Also per-request arrays and a .requests.jsonl file");
  c->add_option("--result-dir", a->result_dir, "Directory of --save-result files")->capture_default_str();
  c->add_option("--result-filename", a->result_filename, "File name of a single point's result");
  c->add_option("--header", a->headers, "Extra HTTP header 'Name: value' (repeatable; not written to results)");
  c->add_option("--extra-body", a->extra_body, "JSON object merged into every request body");
  c->add_option("--api-key-env", a->api_key_env, "Environment variable holding the API key (never written)")->capture_default_str();
  c->add_option("--balance", a->balance, "Across several --base-url: round-robin or least-outstanding")->capture_default_str();
  c->add_option("--timeout", a->timeout, "Per-request time limit")->capture_default_str();
  c->add_option("--stall-timeout", a->stall_timeout, "Fail a request that receives nothing for this long")->capture_default_str();
  c->add_option("--max-itl-ms", a->max_itl_ms, "Report the highest throughput whose ITL statistic stays under this");
  c->add_option("--itl-limit-statistic", a->itl_limit_statistic, "median, mean or p99 ... for --max-itl-ms")->capture_default_str();
  c->add_option("--itl-limit-metric", a->itl_limit_metric, "itl (pooled gaps) or tpot (per request) for --max-itl-ms")->capture_default_str();
  c->add_option("--max-lateness-ms", a->max_lateness_ms, "p99 send lateness above which a point is INVALID")->capture_default_str();
  c->add_option("--ca-cert", a->ca_cert, "https: PEM file of the CA certificates to verify the server with");
  c->add_flag("--insecure", a->insecure, "https: accept any server certificate (self-signed test endpoints)");
  c->add_option("--receive-time", a->receive_time,
                "Token times: kernel (the socket's receive stamp) or read (when the client reads them)")
      ->capture_default_str();
  add_output_options(*c, a->outputs);
  return [a, &call] { return execute(*a, call); };
}

}  // namespace ironbench::cli
