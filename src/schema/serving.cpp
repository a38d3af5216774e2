#include "schema/serving.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ironbench::schema {

const std::vector<std::string>& latency_metrics() {
  static const std::vector<std::string> names = {"ttft", "tpot", "itl", "e2el"};
  return names;
}

const std::vector<std::string>& serving_headline_metrics() {
  static const std::vector<std::string> names = {vllm_key::request_throughput,
                                                 vllm_key::output_throughput,
                                                 vllm_key::total_token_throughput,
                                                 "median_ttft_ms",
                                                 "median_tpot_ms",
                                                 "median_itl_ms",
                                                 "mean_e2el_ms"};
  return names;
}

std::string serving_metric_unit(const std::string& name) {
  if (name == vllm_key::request_throughput) return "req/s";
  if (name.ends_with("_throughput")) return "tok/s";
  if (name.ends_with("_ms")) return "ms";
  return "";
}

std::string request_rate_text(double rate) { return std::isinf(rate) ? "inf" : fmt::format("{:g}", rate); }

core::case_result serving_case(const serving_point& point, std::vector<std::string>* missing) {
  core::case_result c;
  c.benchmark = serving_benchmark;
  c.device = point.device;
  c.params.set("max_concurrency", point.max_concurrency);
  c.params.set("request_rate", point.request_rate);
  c.params.set("num_prompts", point.num_prompts);
  for (const auto& name : serving_headline_metrics()) {
    const auto it = point.values.find(name);
    if (it == point.values.end()) {
      if (missing != nullptr) missing->push_back(name);
      continue;
    }
    c.metrics.push_back({name, it->second, serving_metric_unit(name), vllm_metric_description});
  }
  if (point.failed)
    c.metrics.push_back({vllm_key::failed, *point.failed, "requests", "failed requests"});
  else if (missing != nullptr)
    missing->push_back(vllm_key::failed);
  return c;
}

}  // namespace ironbench::schema
