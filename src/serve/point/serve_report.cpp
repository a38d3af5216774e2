#include "serve/point/serve_report.hpp"
#include "core/json_text.hpp"
#include "serve/measures/latency_metrics.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ironbench::serve {
namespace {

// A label of 40 characters or more is still followed by a space (a server metric's is long).
void line(std::ostream& out, const std::string& label, const std::string& value) {
  fmt::print(out, "{:<40}{:<10}\n", label.size() < 40 ? label : label + " ", value);
}

void section(std::ostream& out, const json& m, const metric_selection& selection, const latency_metric& row) {
  const std::string metric = row.name, name = row.label;
  fmt::print(out, "{:-^50}\n", row.title);
  line(out, fmt::format("Mean {} ({}):", name, row.unit),
       fmt::format("{:.2f}", m.value(fmt::format("mean_{}_ms", metric), 0.0)));
  line(out, fmt::format("Median {} ({}):", name, row.unit),
       fmt::format("{:.2f}", m.value(fmt::format("median_{}_ms", metric), 0.0)));
  for (double p : selection.percentiles) {
    const auto key = percentile_key(p, metric);
    if (m.contains(key))
      line(out, fmt::format("P{:g} {} ({}):", p, name, row.unit), fmt::format("{:.2f}", m.at(key).get<double>()));
  }
}

std::string number_text(const json& value) {
  return value.is_number() ? fmt::format("{:.1f}", value.get<double>()) : std::string("-");
}

}  // namespace

void write_server_metrics_summary(std::ostream& out, const json& summary) {
  const auto engine = summary.value("engine", json());
  if (engine.is_null()) {
    const auto why = summary.contains("error")
                         ? summary.at("error").get<std::string>()
                         : fmt::format("no series of a known engine among {} scrape(s)", summary.value("scrapes", 0));
    fmt::print(out, "Server metrics: none ({})\n", why);
    return;
  }
  fmt::print(out, "{:-^50}\n", fmt::format("Server metrics ({})", engine.get<std::string>()));
  line(out, "Scrapes (failed):",
       fmt::format("{} ({}) every {:g} s", summary.value("scrapes", 0), summary.value("failed_scrapes", 0),
                   summary.value("interval_s", 0.0)));
  for (const auto& [name, m] : summary.at("metrics").items()) {
    const auto unit = m.value("unit", "");
    // A row of nothing but "-" says only that the server lacks the feature: left out.
    const bool empty = m.contains("increase")
                           ? !m.at("rate_per_s_mean").is_number() && !m.at("rate_per_s_max").is_number()
                           : !m.value("mean", json()).is_number() && !m.value("max", json()).is_number();
    if (empty) continue;
    if (m.contains("increase")) {
      line(out, fmt::format("{} ({}/s mean / max):", name, unit),
           fmt::format("{} / {}", number_text(m.at("rate_per_s_mean")), number_text(m.at("rate_per_s_max"))));
    } else {
      line(out, fmt::format("{} ({} mean / max):", name, unit),
           fmt::format("{} / {}", number_text(m.at("mean")), number_text(m.at("max"))));
    }
  }
  if (!summary.value("stage_data", true)) {
    fmt::print(out, "Server stage times: none ({} publishes no per-request queue, prefill or decode time)\n",
               engine.get<std::string>());
  }
}

namespace {

// From the intended send time, the steady-state window and the conversations' turns, where
// the point has them.
void write_serving_load_sections(std::ostream& out, const json& m) {
  if (m.contains("median_ttft_from_schedule_ms")) {
    fmt::print(out, "{:-^50}\n", "From the intended send time");
    line(out, "Median / P99 schedule delay (ms):",
         fmt::format("{:.2f} / {:.2f}", m.at("median_schedule_delay_ms").get<double>(),
                     m.value(percentile_key(99, "schedule_delay"), 0.0)));
    line(out,
         "Median TTFT from schedule (ms):", fmt::format("{:.2f}", m.at("median_ttft_from_schedule_ms").get<double>()));
    line(out,
         "Median E2EL from schedule (ms):", fmt::format("{:.2f}", m.at("median_e2el_from_schedule_ms").get<double>()));
  }
  if (const auto steady = m.value("steady_state", json()); steady.is_object()) {
    fmt::print(out, "{:-^50}\n", "Steady state");
    if (steady.contains("start_s")) {
      line(out, "Window (s):",
           fmt::format("{:.3f} to {:.3f} ({} requests inside)", steady.at("start_s").get<double>(),
                       steady.at("end_s").get<double>(), steady.value("requests", 0)));
      line(out, "Output token throughput (tok/s):", fmt::format("{:.2f}", steady.value("output_throughput", 0.0)));
      line(out, "Median TTFT / TPOT (ms):",
           fmt::format("{:.2f} / {:.2f}", steady.value("median_ttft_ms", 0.0), steady.value("median_tpot_ms", 0.0)));
    } else {
      line(out, "Window:", "none: " + steady.value("reason", std::string()));
    }
  }
  if (m.contains("turns")) {
    fmt::print(out, "{:-^50}\n", "Conversations");
    for (const auto& t : m.at("turns")) {
      line(out, fmt::format("Turn {} median TTFT / mean prompt:", t.value("turn", 0)),
           fmt::format("{:.2f} ms / {:.0f} tokens", t.value("median_ttft_ms", 0.0), t.value("mean_prompt_len", 0.0)));
    }
    if (m.value("conversation_turns_not_sent", 0) > 0) {
      line(out, "Turns not sent (earlier turn failed):", fmt::format("{}", m.value("conversation_turns_not_sent", 0)));
    }
  }
}

// The client's own timing: its ranks, lateness, CPU, kernel stamps and their accuracy, the
// failures and what the server reported wrongly, and the point's verdict.
void write_serving_client_section(std::ostream& out, const json& m, const load_result& load) {
  fmt::print(out, "{:-^50}\n", "Client");
  if (load.ranks.is_array()) {
    for (const auto& r : load.ranks) {
      line(out, fmt::format("Rank {} requests / p99 lateness / CPU:", r.value("rank", 0)),
           fmt::format("{} / {:.3f} ms / {:.1f} %", r.value("requests", 0), r.value("send_lateness_p99_ms", 0.0),
                       r.value("client_cpu_percent", 0.0)));
    }
  }
  line(out,
       "Send lateness p50 / p99 (ms):", fmt::format("{:.3f} / {:.3f}", load.lateness_p50_ms, load.lateness_p99_ms));
  line(out, "Lateness limit (ms):", fmt::format("{:.3f} ({})", load.lateness_limit_ms, load.lateness_limit_basis));
  if (load.host_steal_percent) {
    line(out, "Host CPU stolen / others (%):",
         fmt::format("{:.1f} / {:.1f}", *load.host_steal_percent, *load.host_others_percent));
  }
  line(out, "Client CPU (% of one core):", fmt::format("{:.1f}", 100 * load.client_cpu));
  if (load.kernel_stamped_share > 0) {
    line(out, "Reads timed by kernel stamps (%):", fmt::format("{:.1f}", 100 * load.kernel_stamped_share));
    line(out, "Wait in sockets p50 / p99 (ms):",
         fmt::format("{:.3f} / {:.3f}", load.socket_wait_p50_ms, load.socket_wait_p99_ms));
  } else {
    line(out, "Token times:", "when read (no kernel stamps)");
  }
  if (load.token_events_timed_together > 0) {
    line(out, "Token events read with a later one:", fmt::format("{}", load.token_events_timed_together));
  }
  if (load.ground_truth.contains("itl_error_p99_ms")) {
    line(out, "ITL error vs server stamps p50/p99 (ms):",
         fmt::format("{:.3f} / {:.3f}", load.ground_truth.at("itl_error_p50_ms").get<double>(),
                     load.ground_truth.at("itl_error_p99_ms").get<double>()));
  }
  if (!m.at("errors_by_class").empty()) line(out, "Failures by class:", core::json_text(m.at("errors_by_class")));
  if (const auto n = m.value("implausible_usage_requests", std::size_t{0}); n > 0) {
    line(out, "Implausible usage (client counts used):", fmt::format("{}", n));
  }
  if (const auto n = m.value("responses_with_invalid_utf8", std::size_t{0}); n > 0) {
    line(out, "Responses with invalid UTF-8 (replaced):", fmt::format("{}", n));
  }
  line(out, "Verdict:", load.valid ? "VALID" : "INVALID: " + load.invalid_reason);
}

}  // namespace

void write_serving_summary(std::ostream& out, const json& m, const load_result& load,
                           const metric_selection& selection) {
  fmt::print(out, "{:=^50}\n", " Serving Benchmark Result ");
  line(out, "Successful requests:", fmt::format("{}", m.at("completed").get<std::size_t>()));
  line(out, "Failed requests:", fmt::format("{}", m.at("failed").get<std::size_t>()));
  line(out, "Benchmark duration (s):", fmt::format("{:.2f}", m.at("duration").get<double>()));
  line(out, "Total input tokens:", fmt::format("{}", m.at("total_input_tokens").get<std::int64_t>()));
  line(out, "Total generated tokens:", fmt::format("{}", m.at("total_output_tokens").get<std::int64_t>()));
  line(out, "Request throughput (req/s):", fmt::format("{:.2f}", m.at("request_throughput").get<double>()));
  if (m.contains("request_goodput"))
    line(out, "Request goodput (req/s):", fmt::format("{:.2f}", m.at("request_goodput").get<double>()));
  if (m.contains("slo_attainment")) {
    line(out, "SLO attainment, every SLO (%):", fmt::format("{:.2f}", 100 * m.at("slo_attainment").get<double>()));
    for (const auto& metric : latency_metric_table()) {
      const auto key = fmt::format("slo_attainment_{}", metric.name);
      if (metric.goodput && m.contains(key))
        line(out, fmt::format("SLO attainment, {} alone (%):", metric.name),
             fmt::format("{:.2f}", 100 * m.at(key).get<double>()));
    }
    line(out, "Token goodput (tok/s):", fmt::format("{:.2f}", m.at("token_goodput").get<double>()));
  }
  line(out, "Output token throughput (tok/s):", fmt::format("{:.2f}", m.at("output_throughput").get<double>()));
  if (m.contains("output_throughput_per_gpu")) {
    line(out, fmt::format("Output token throughput per GPU ({}):", m.value("gpus", 0)),
         fmt::format("{:.2f}", m.at("output_throughput_per_gpu").get<double>()));
  }
  if (m.contains("median_interactivity")) {
    line(out, "Tok/s per user, median / at p90 TPOT:",
         fmt::format("{:.2f} / {:.2f}", m.at("median_interactivity").get<double>(),
                     m.value("interactivity_at_p90_tpot", 0.0)));
  }
  line(out, "Total Token throughput (tok/s):", fmt::format("{:.2f}", m.at("total_token_throughput").get<double>()));
  line(out, "Max concurrent requests:", fmt::format("{}", m.at("max_concurrent_requests").get<std::size_t>()));
  for (const auto& name : selection.metrics) {
    if (const auto* metric = find_latency_metric(name)) section(out, m, selection, *metric);
  }
  write_serving_load_sections(out, m);
  write_serving_client_section(out, m, load);
  fmt::print(out, "{:=^50}\n", "");
}

std::string request_records_jsonl(const std::vector<request_record>& records) {
  std::string out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    json itl = json::array();
    for (double gap : r.itl_s) itl.push_back(gap * 1e3);
    json j = {
        {"index", i},           {"endpoint", r.endpoint},     {"scheduled_s", r.scheduled_s}, {"sent_s", r.sent_s},
        {"success", r.success}, {"prompt_len", r.prompt_len}, {"e2el_ms", r.e2el_s * 1e3}};
    if (!r.pooled) {  // a pooling reply has no tokens to time
      j["output_len"] = r.output_len;
      j["ttft_ms"] = r.ttft_s * 1e3;
      j["itl_ms"] = itl;
    }
    if (r.usage_output_tokens) j["usage_output_tokens"] = *r.usage_output_tokens;
    if (r.usage_prompt_tokens) j["usage_prompt_tokens"] = *r.usage_prompt_tokens;
    if (r.images > 0) j["images"] = r.images;
    if (!r.usage_problem.empty()) j["usage_problem"] = r.usage_problem;
    if (r.invalid_utf8) j["invalid_utf8_replaced"] = true;
    if (r.turn >= 0) j["turn"] = r.turn + 1;
    if (!r.success) {
      j["error_class"] = r.error_class;
      j["error"] = r.error;
    }
    out += core::json_text(j) + "\n";
  }
  return out;
}

json detailed_arrays(const std::vector<request_record>& records) {
  json input = json::array(), output = json::array(), ttfts = json::array(), itls = json::array(),
       texts = json::array(), errors = json::array();
  std::size_t not_kept = 0;
  for (const auto& r : records) {
    input.push_back(r.prompt_len);
    output.push_back(r.success ? r.output_len : 0);
    ttfts.push_back(r.success ? r.ttft_s : 0.0);
    itls.push_back(r.itl_s);
    texts.push_back(r.generated_text);
    if (r.text_not_kept) ++not_kept;
    errors.push_back(r.success ? std::string() : r.error_class + ": " + r.error);
  }
  return {{"input_lens", input}, {"output_lens", output},    {"ttfts", ttfts},
          {"itls", itls},        {"generated_texts", texts}, {"generated_texts_not_kept", not_kept},
          {"errors", errors}};
}

int best_point_under_limit(const std::vector<json>& points, const std::string& metric, const std::string& statistic,
                           double limit_ms) {
  int best = -1;
  double best_throughput = -1;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto key = fmt::format("{}_{}_ms", statistic, metric);  // median_itl_ms, p99_tpot_ms ...
    if (!points[i].contains(key)) continue;
    if (points[i].at(key).get<double>() > limit_ms) continue;
    const double throughput = points[i].at("output_throughput").get<double>();
    if (throughput > best_throughput) {
      best_throughput = throughput;
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace ironbench::serve
