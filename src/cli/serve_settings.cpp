// serve_arguments to the sweep's settings (cli/serve_options.hpp's to_settings).
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

// --duration, --grace-period and the ramp-up (docs/serving-metrics.md, "Points bounded by time").
void add_time_bound(const serve_arguments& a, serve::load_settings& load) {
  if (!a.duration.empty()) {
    load.duration_s = parse_duration_s(a.duration, "--duration");
    if (!(load.duration_s > 0)) throw usage_error("--duration must be positive (e.g. 60s, 5m)");
  }
  if (!a.grace_period.empty()) {
    if (a.duration.empty()) throw usage_error("--grace-period applies to --duration (the wait after it)");
    load.grace_s = parse_duration_s(a.grace_period, "--grace-period");
  }
  const bool any_ramp = !a.ramp_up_strategy.empty() || !a.ramp_up_start_rps.empty() || !a.ramp_up_end_rps.empty();
  if (!any_ramp) return;
  if (a.ramp_up_strategy.empty() || a.ramp_up_start_rps.empty() || a.ramp_up_end_rps.empty()) {
    throw usage_error("a ramp-up takes --ramp-up-strategy, --ramp-up-start-rps and --ramp-up-end-rps together");
  }
  load.ramp.strategy = serve::parse_ramp_strategy(a.ramp_up_strategy);
  load.ramp.start_rps = parse_number(a.ramp_up_start_rps, "--ramp-up-start-rps");
  load.ramp.end_rps = parse_number(a.ramp_up_end_rps, "--ramp-up-end-rps");
}

}  // namespace

serve::sweep_settings to_settings(const serve_arguments& a) {
  auto s = a.sweep;
  auto& load = s.load;
  load.base_urls = a.base_urls;
  if (load.base_urls.empty()) load.base_urls = {fmt::format("http://{}:{}", a.host, a.port)};
  serve::normalize_base_urls(load.base_urls);
  // A password in a URL is sent as a header (unless --header gives one) and never recorded with the URL.
  s.url_authorization = serve::take_url_credentials(load.base_urls);
  // The kind of request: --backend's row of the endpoint table, or the one --endpoint implies.
  const auto& kind = serve::endpoint_for(a.backend, load.endpoint);
  if (a.backend != "auto" && load.endpoint == serve::load_settings{}.endpoint) load.endpoint = std::string(kind.path);
  load.kind = kind.kind;
  load.api = serve::api_of(kind.kind);
  load.stream = !a.no_stream && kind.generates;  // pooling replies come whole
  s.pooling.inputs_per_request = serve::parse_inputs_per_request(a.inputs_per_request);
  if (!a.image_size.empty()) serve::parse_image_size(a.image_size, s.images);
  if (!a.lora_modules.empty()) s.lora = serve::parse_lora_modules(a.lora_modules);
  serve::set_lora_route(s.lora, a.lora_by, s.check_adapters);
  load.timeout_s = parse_duration_s(a.timeout, "--timeout");
  load.stall_timeout_s = parse_duration_s(a.stall_timeout, "--stall-timeout");
  load.max_response_bytes = parse_size(a.max_response_bytes, "--max-response-bytes");
  load.max_kept_text_bytes = parse_size(a.max_kept_text_bytes, "--max-kept-text-bytes");
  load.kernel_receive_stamps = serve::parse_receive_time(a.receive_time);
  load.verify_tls = !a.insecure;
  load.balance = serve::parse_balance(a.balance);
  s.body.api = load.api;
  s.body.stream = load.stream;
  if (!a.extra_body.empty()) {
    s.body.extra = json::parse(a.extra_body, nullptr, false);
    if (s.body.extra.is_discarded() || !s.body.extra.is_object()) {
      throw usage_error("--extra-body must be a JSON object");
    }
  }
  s.selection = serve::parse_metric_selection(a.percentile_metrics, a.metric_percentiles);
  s.slo = serve::parse_goodput(a.goodput);
  s.rates = serve::parse_sweep_values(a.request_rate, "--request-rate");
  add_time_bound(a, load);
  s.concurrencies = a.max_concurrency.empty() ? std::vector<double>{0}
                                              : serve::parse_sweep_values(a.max_concurrency, "--max-concurrency");
  // Progress: rewritten in place every second on a terminal, a plain line every 10 s in a log.
  s.live_progress = isatty(STDERR_FILENO) != 0;
  s.progress_interval_s = a.progress_interval.empty() ? (s.live_progress ? 1.0 : 10.0)
                                                      : parse_duration_s(a.progress_interval, "--progress-interval");
  if (!a.slo.empty()) s.objectives = serve::parse_slo(a.slo);
  if (!a.search.empty()) {
    s.search = a.search_bounds;
    s.search->axis = serve::parse_search_axis(a.search);
    s.search->start_from_estimate = !a.search_start_given;
    s.search->probe_duration_s = parse_duration_s(a.search_probe_duration, "--search-probe-duration");
    s.search->estimate_duration_s = parse_duration_s(a.search_estimate_duration, "--search-estimate-duration");
    // An explicit --num-prompts caps every probe.
    if (a.num_prompts_given) s.search->max_probe_requests = s.num_prompts;
  }
  s.stop_at_saturation = !a.keep_past_saturation;
  s.server_metrics.enabled = !a.no_server_metrics;
  s.server_metrics.interval_s = parse_duration_s(a.metrics_interval, "--metrics-interval");
  s.server_metrics.roles = serve::split_metrics_roles(s.server_metrics.urls);
  serve::check_sweep_settings(s);
  return s;
}

}  // namespace ironbench::cli
