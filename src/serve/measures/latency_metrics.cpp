#include "serve/measures/latency_metrics.hpp"

namespace ironbench::serve {
namespace {

void collect_ttft(const request_record& r, std::vector<double>& v) { v.push_back(r.ttft_s); }
double ttft_of(const request_record& r) { return r.ttft_s; }

void collect_tpot(const request_record& r, std::vector<double>& v) {
  if (const auto t = time_per_output_token(r)) v.push_back(*t);
}
// One output token has no TPOT: it meets a TPOT objective (vLLM counts it as 0).
double tpot_of(const request_record& r) { return time_per_output_token(r).value_or(0.0); }

// vLLM's ITL: every gap between consecutive token events, pooled over the requests.
void collect_itl(const request_record& r, std::vector<double>& v) { v.insert(v.end(), r.itl_s.begin(), r.itl_s.end()); }

void collect_e2el(const request_record& r, std::vector<double>& v) { v.push_back(r.e2el_s); }
double e2el_of(const request_record& r) { return r.e2el_s; }

void collect_ttst(const request_record& r, std::vector<double>& v) {
  if (const auto t = time_to_second_token(r)) v.push_back(*t);
}

bool usable(const latency_metric& m, metric_use use) {
  switch (use) {
    case metric_use::any: return true;
    case metric_use::slo: return m.slo;
    case metric_use::goodput: return m.goodput != nullptr;
  }
  return false;
}

}  // namespace

std::optional<double> time_to_second_token(const request_record& r) {
  if (r.itl_s.empty()) return std::nullopt;
  return r.ttft_s + r.itl_s.front();
}

std::optional<double> time_per_output_token(const request_record& r) {
  if (r.output_len <= 1) return std::nullopt;
  return (r.e2el_s - r.ttft_s) / static_cast<double>(r.output_len - 1);
}

const std::vector<latency_metric>& latency_metric_table() {
  static const std::vector<latency_metric> table = {
      {"ttft", "TTFT", "Time to First Token", "ms", true, true, true, &goodput_slo::ttft_ms, collect_ttft, ttft_of},
      {"tpot", "TPOT", "Time per Output Token (excl. 1st token)", "ms", true, true, true, &goodput_slo::tpot_ms,
       collect_tpot, tpot_of},
      {"itl", "ITL", "Inter-token Latency", "ms", true, true, true, nullptr, collect_itl, nullptr},
      {"e2el", "E2EL", "End-to-end Latency", "ms", true, true, false, &goodput_slo::e2el_ms, collect_e2el, e2el_of},
      {"ttst", "TTST", "Time to Second Token", "ms", false, true, true, nullptr, collect_ttst, nullptr},
  };
  return table;
}

const latency_metric* find_latency_metric(std::string_view name) {
  for (const auto& m : latency_metric_table()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

std::string latency_metric_names(metric_use use, std::string_view separator, std::string_view suffix) {
  std::string out;
  for (const auto& m : latency_metric_table()) {
    if (!usable(m, use)) continue;
    if (!out.empty()) out += separator;
    out += m.name;
    out += suffix;
  }
  return out;
}

bool any_objective(const goodput_slo& slo) {
  for (const auto& m : latency_metric_table()) {
    if (m.goodput && slo.*m.goodput) return true;
  }
  return false;
}

bool meets_objective(const latency_metric& metric, const request_record& r, const goodput_slo& slo) {
  if (!metric.goodput || !(slo.*metric.goodput)) return true;
  return metric.per_request(r) * 1e3 <= *(slo.*metric.goodput);
}

}  // namespace ironbench::serve
