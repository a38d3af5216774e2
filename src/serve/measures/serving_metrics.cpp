#include "serve/measures/serving_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "core/units.hpp"
#include "serve/measures/latency_metrics.hpp"

namespace ironbench::serve {
namespace {

// Statistics of a latency list in milliseconds, vLLM-style: empty lists give zeros.
void add_statistics(json& out, const std::string& metric, const std::vector<double>& seconds,
                    const metric_selection& selection) {
  std::vector<double> ms(seconds.size());
  std::transform(seconds.begin(), seconds.end(), ms.begin(), [](double s) { return s * 1e3; });
  const bool any = !ms.empty();
  out[fmt::format("mean_{}_ms", metric)] = any ? core::mean(ms) : 0.0;
  out[fmt::format("median_{}_ms", metric)] = any ? core::percentile(ms, 50) : 0.0;
  out[fmt::format("std_{}_ms", metric)] = any ? core::population_stddev(ms) : 0.0;
  if (std::find(selection.metrics.begin(), selection.metrics.end(), metric) == selection.metrics.end()) return;
  for (double p : selection.percentiles) out[percentile_key(p, metric)] = any ? core::percentile(ms, p) : 0.0;
}

}  // namespace

goodput_slo parse_goodput(const std::vector<std::string>& items) {
  goodput_slo slo;
  for (const auto& item : items) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) throw usage_error(fmt::format("--goodput takes NAME:MS, not '{}'", item));
    const auto name = item.substr(0, colon);
    const double ms = parse_number(item.substr(colon + 1), "--goodput " + name);
    if (ms < 0) throw usage_error(fmt::format("--goodput {} must not be negative", name));
    const auto* metric = find_latency_metric(name);
    if (!metric || !metric->goodput) {
      throw usage_error(
          fmt::format("--goodput: unknown metric '{}' ({})", name, latency_metric_names(metric_use::goodput, ", ")));
    }
    slo.*metric->goodput = ms;
  }
  return slo;
}

json schedule_latency_metrics(const std::vector<request_record>& records, const metric_selection& selection) {
  std::vector<double> delay, ttft, e2el;
  for (const auto& r : records) {
    const double d = std::max(0.0, r.sent_s - r.scheduled_s);
    delay.push_back(d);
    if (!r.success) continue;
    ttft.push_back(d + r.ttft_s);
    e2el.push_back(d + r.e2el_s);
  }
  metric_selection every = selection;
  every.metrics = {"schedule_delay", "ttft_from_schedule", "e2el_from_schedule"};
  json out = json::object();
  add_statistics(out, "schedule_delay", delay, every);
  add_statistics(out, "ttft_from_schedule", ttft, every);
  add_statistics(out, "e2el_from_schedule", e2el, every);
  return out;
}

std::string percentile_key(double p, const std::string& metric) {
  const std::string word = p == std::floor(p) ? fmt::format("{}", static_cast<long long>(p)) : fmt::format("{}", p);
  return fmt::format("p{}_{}_ms", word, metric);
}

std::size_t max_concurrent_requests(const std::vector<request_record>& records) {
  std::vector<std::pair<double, int>> events;
  for (const auto& r : records) {
    events.emplace_back(r.sent_s, +1);
    events.emplace_back(r.sent_s + r.e2el_s, -1);
  }
  std::sort(events.begin(), events.end());  // at equal times the end (-1) comes first
  std::size_t current = 0, most = 0;
  for (const auto& [time, delta] : events) {
    current = static_cast<std::size_t>(static_cast<long long>(current) + delta);
    most = std::max(most, current);
  }
  return most;
}

json serving_metrics(const std::vector<request_record>& records, double duration_s, const goodput_slo& slo,
                     const metric_selection& selection) {
  const auto& table = latency_metric_table();
  std::vector<std::vector<double>> values(table.size());
  std::int64_t total_input = 0, total_output = 0;
  std::size_t completed = 0, good = 0, mismatched = 0, implausible = 0, invalid_utf8 = 0;
  std::map<std::string, std::size_t> errors;
  for (const auto& r : records) {
    if (r.invalid_utf8) ++invalid_utf8;
    if (!r.success) {
      ++errors[r.error_class.empty() ? "unknown" : r.error_class];
      continue;
    }
    ++completed;
    if (!r.usage_problem.empty()) ++implausible;
    total_input += r.prompt_len;
    total_output += r.output_len;
    bool meets_all = true;
    for (std::size_t i = 0; i < table.size(); ++i) {
      table[i].collect(r, values[i]);
      meets_all = meets_all && meets_objective(table[i], r, slo);
    }
    if (meets_all) ++good;
    if (r.usage_output_tokens && r.tokenizer_output_tokens && *r.usage_output_tokens != *r.tokenizer_output_tokens) {
      ++mismatched;
    }
  }
  json out;
  out["duration"] = duration_s;
  out["completed"] = completed;
  out["failed"] = records.size() - completed;
  out["total_input_tokens"] = total_input;
  out["total_output_tokens"] = total_output;
  const double d = duration_s > 0 ? duration_s : 1.0;
  out["request_throughput"] = static_cast<double>(completed) / d;
  if (any_objective(slo)) out["request_goodput"] = static_cast<double>(good) / d;
  out["output_throughput"] = static_cast<double>(total_output) / d;
  out["total_token_throughput"] = static_cast<double>(total_input + total_output) / d;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& name = table[i].name;
    const bool selected =
        std::find(selection.metrics.begin(), selection.metrics.end(), name) != selection.metrics.end();
    if (table[i].always || selected) add_statistics(out, name, values[i], selection);
  }
  out["max_concurrent_requests"] = max_concurrent_requests(records);
  out["errors_by_class"] = errors;
  out["output_token_count_mismatches"] = mismatched;
  out["implausible_usage_requests"] = implausible;
  out["responses_with_invalid_utf8"] = invalid_utf8;
  return out;
}

json turn_metrics(const std::vector<request_record>& records) {
  std::map<int, std::vector<const request_record*>> by_turn;
  for (const auto& r : records) {
    if (r.turn >= 0) by_turn[r.turn].push_back(&r);
  }
  json out = json::array();
  for (const auto& [turn, list] : by_turn) {
    std::vector<double> ttft_ms, prompt;
    for (const auto* r : list) {
      prompt.push_back(static_cast<double>(r->prompt_len));
      if (r->success) ttft_ms.push_back(r->ttft_s * 1e3);
    }
    json t = {{"turn", turn + 1},
              {"requests", list.size()},
              {"completed", ttft_ms.size()},
              {"mean_prompt_len", core::mean(prompt)}};
    if (!ttft_ms.empty()) {
      t["mean_ttft_ms"] = core::mean(ttft_ms);
      t["median_ttft_ms"] = core::percentile(ttft_ms, 50);
      t["p99_ttft_ms"] = core::percentile(ttft_ms, 99);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ironbench::serve
