#include "serve/sim/sim_metrics.hpp"

#include <fmt/format.h>

namespace ironbench::serve {

void sim_histogram::add(double seconds) {
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (seconds <= bounds[i]) {
      ++buckets[i];
      break;
    }
  }
  ++count;
  sum += seconds;
}

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string sim_metrics_text(const sim_metrics_state& s) {
  const auto labels = fmt::format(R"(engine="0",model_name="{}")", escape_label_value(s.model));
  std::string out;
  const auto family = [&](const char* name, const char* type, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  const auto sample = [&](const std::string& name, const std::string& extra, double value) {
    out += fmt::format("{}{{{}{}}} {}\n", name, labels, extra, value);
  };
  family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.");
  sample("vllm:num_requests_running", "", static_cast<double>(s.running));
  family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.");
  sample("vllm:num_requests_waiting", "", static_cast<double>(s.waiting));
  family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.");
  sample("vllm:kv_cache_usage_perc", "", s.kv_usage);
  const auto& c = s.counters;
  family("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.");
  sample("vllm:prompt_tokens_total", "", static_cast<double>(c.prompt_tokens));
  family("vllm:generation_tokens", "counter", "Number of generation tokens processed.");
  sample("vllm:generation_tokens_total", "", static_cast<double>(c.generation_tokens));
  family("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.");
  sample("vllm:num_preemptions_total", "", 0);
  family("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens.");
  sample("vllm:prefix_cache_queries_total", "", static_cast<double>(c.prefix_queries));
  family("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens.");
  sample("vllm:prefix_cache_hits_total", "", 0);
  family("vllm:request_success", "counter", "Count of successfully processed requests.");
  sample("vllm:request_success_total", R"(,finished_reason="length")", static_cast<double>(c.succeeded));
  family("vllm:e2e_request_latency_seconds", "histogram", "Histogram of e2e request latency in seconds.");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < sim_histogram::bounds.size(); ++i) {
    cumulative += c.e2e_latency.buckets[i];
    sample("vllm:e2e_request_latency_seconds_bucket", fmt::format(R"(,le="{}")", sim_histogram::bounds[i]),
           static_cast<double>(cumulative));
  }
  sample("vllm:e2e_request_latency_seconds_bucket", R"(,le="+Inf")", static_cast<double>(c.e2e_latency.count));
  sample("vllm:e2e_request_latency_seconds_count", "", static_cast<double>(c.e2e_latency.count));
  sample("vllm:e2e_request_latency_seconds_sum", "", c.e2e_latency.sum);
  return out;
}

}  // namespace ironbench::serve
