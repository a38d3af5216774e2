#include "serve/measures/pooling_metrics.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>

#include "core/json_text.hpp"
#include "core/statistics.hpp"

namespace ironbench::serve {
namespace {

void pooling_line(std::ostream& out, const std::string& label, const std::string& value) {
  fmt::print(out, "{:<40}{:<10}\n", label, value);
}

}  // namespace

json pooling_metrics(const std::vector<request_record>& records, double duration_s, const metric_selection& selection,
                     std::int64_t inputs_per_request, std::size_t embedding_dimension) {
  std::vector<double> e2el_ms;
  std::int64_t input_tokens = 0;
  std::size_t completed = 0, from_usage = 0;
  std::map<std::string, std::size_t> errors;
  for (const auto& r : records) {
    if (!r.success) {
      ++errors[r.error_class.empty() ? "unknown" : r.error_class];
      continue;
    }
    ++completed;
    if (r.usage_prompt_tokens) ++from_usage;
    input_tokens += r.usage_prompt_tokens.value_or(r.prompt_len);
    e2el_ms.push_back(r.e2el_s * 1e3);
  }
  const double d = duration_s > 0 ? duration_s : 1.0;
  json out;
  out["duration"] = duration_s;
  out["completed"] = completed;
  out["failed"] = records.size() - completed;
  out["inputs_per_request"] = inputs_per_request;
  out["total_input_tokens"] = input_tokens;
  out["input_tokens_from_usage"] = from_usage;
  out["request_throughput"] = static_cast<double>(completed) / d;
  out["input_throughput"] = static_cast<double>(input_tokens) / d;
  out["total_token_throughput"] = static_cast<double>(input_tokens) / d;
  out["inputs_throughput"] = static_cast<double>(completed) * static_cast<double>(inputs_per_request) / d;
  const bool any = !e2el_ms.empty();
  out["mean_e2el_ms"] = any ? core::mean(e2el_ms) : 0.0;
  out["median_e2el_ms"] = any ? core::percentile(e2el_ms, 50) : 0.0;
  out["std_e2el_ms"] = any ? core::population_stddev(e2el_ms) : 0.0;
  for (double p : selection.percentiles) out[percentile_key(p, "e2el")] = any ? core::percentile(e2el_ms, p) : 0.0;
  out["max_concurrent_requests"] = max_concurrent_requests(records);
  out["errors_by_class"] = errors;
  if (embedding_dimension > 0) out["embedding_dimension"] = embedding_dimension;
  return out;
}

json pooling_schedule_metrics(const std::vector<request_record>& records, const metric_selection& selection) {
  auto all = schedule_latency_metrics(records, selection);
  json out = json::object();
  for (auto& [key, value] : all.items()) {
    if (key.find("ttft") == std::string::npos) out[key] = value;
  }
  return out;
}

void write_pooling_summary(std::ostream& out, const json& m, const load_result& load,
                           const metric_selection& selection) {
  fmt::print(out, "{:=^50}\n", " Serving Benchmark Result ");
  pooling_line(out, "Successful requests:", fmt::format("{}", m.at("completed").get<std::size_t>()));
  pooling_line(out, "Failed requests:", fmt::format("{}", m.at("failed").get<std::size_t>()));
  pooling_line(out, "Benchmark duration (s):", fmt::format("{:.2f}", m.at("duration").get<double>()));
  pooling_line(out, "Inputs per request:", fmt::format("{}", m.at("inputs_per_request").get<std::int64_t>()));
  pooling_line(out, "Total input tokens:", fmt::format("{}", m.at("total_input_tokens").get<std::int64_t>()));
  pooling_line(out, "Input tokens from server usage:",
               fmt::format("{} of {} requests", m.at("input_tokens_from_usage").get<std::size_t>(),
                           m.at("completed").get<std::size_t>()));
  pooling_line(out, "Request throughput (req/s):", fmt::format("{:.2f}", m.at("request_throughput").get<double>()));
  pooling_line(out, "Input token throughput (tok/s):", fmt::format("{:.2f}", m.at("input_throughput").get<double>()));
  pooling_line(out, "Inputs per second:", fmt::format("{:.2f}", m.at("inputs_throughput").get<double>()));
  if (m.contains("embedding_dimension")) {
    pooling_line(out, "Embedding dimension:", fmt::format("{}", m.at("embedding_dimension").get<std::size_t>()));
  }
  pooling_line(out, "Max concurrent requests:", fmt::format("{}", m.at("max_concurrent_requests").get<std::size_t>()));
  fmt::print(out, "{:-^50}\n", "Latency (whole reply)");
  pooling_line(out, "Mean latency (ms):", fmt::format("{:.2f}", m.at("mean_e2el_ms").get<double>()));
  pooling_line(out, "Median latency (ms):", fmt::format("{:.2f}", m.at("median_e2el_ms").get<double>()));
  for (double p : selection.percentiles) {
    pooling_line(out, fmt::format("P{:g} latency (ms):", p),
                 fmt::format("{:.2f}", m.value(percentile_key(p, "e2el"), 0.0)));
  }
  if (m.contains("median_e2el_from_schedule_ms")) {
    pooling_line(out, "Median latency from schedule (ms):",
                 fmt::format("{:.2f}", m.at("median_e2el_from_schedule_ms").get<double>()));
  }
  fmt::print(out, "{:-^50}\n", "Client");
  pooling_line(
      out, "Send lateness p50 / p99 (ms):", fmt::format("{:.3f} / {:.3f}", load.lateness_p50_ms, load.lateness_p99_ms));
  pooling_line(out,
               "Lateness limit (ms):", fmt::format("{:.3f} ({})", load.lateness_limit_ms, load.lateness_limit_basis));
  pooling_line(out, "Client CPU (% of one core):", fmt::format("{:.1f}", 100 * load.client_cpu));
  if (!m.at("errors_by_class").empty())
    pooling_line(out, "Failures by class:", core::json_text(m.at("errors_by_class")));
  pooling_line(out, "Verdict:", load.valid ? "VALID" : "INVALID: " + load.invalid_reason);
  fmt::print(out, "{:=^50}\n", "");
}

std::vector<core::metric> pooling_case_metrics(const json& m) {
  std::vector<core::metric> out = {
      {"input_throughput", m.at("input_throughput").get<double>(), "tok/s", "input tokens per second"},
      {"inputs_throughput", m.at("inputs_throughput").get<double>(), "inputs/s",
       "texts (embeddings) or documents (rerank, score) per second"},
      {"median_e2el_ms", m.at("median_e2el_ms").get<double>(), "ms", "median latency of the whole reply"}};
  if (m.contains("p99_e2el_ms")) {
    out.push_back({"p99_e2el_ms", m.at("p99_e2el_ms").get<double>(), "ms", "p99 latency of the whole reply"});
  }
  return out;
}

void describe_pooling_point(json& vllm, endpoint_kind kind, const std::string& endpoint) {
  vllm["backend"] = std::string(endpoint_of(kind).backend);
  vllm["endpoint"] = endpoint;
  vllm["token_counts"] =
      "input tokens from usage.prompt_tokens (usage.total_tokens where only that is given), else the client's count "
      "(the tokenizer's, or words without --tokenizer); rerank and score count each (query, document) pair";
  if (vllm.contains("endpoints") && vllm.at("endpoints").is_object()) {
    for (auto& [url, e] : vllm.at("endpoints").items()) e.erase("mean_ttft_ms");
  }
}

}  // namespace ironbench::serve
