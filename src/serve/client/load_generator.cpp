#include "serve/client/load_generator.hpp"

#include "core/statistics.hpp"
#include "serve/client/load_run.hpp"
#include "serve/common/text_units.hpp"

namespace ironbench::serve {

json endpoint_breakdown(const std::vector<request_record>& records, const std::vector<std::string>& urls) {
  json out = json::object();
  for (const auto& url : urls) out[url] = {{"requests", 0}, {"completed", 0}, {"failed", 0}};
  for (const auto& r : records) {
    auto& e = out[r.endpoint];
    e["requests"] = e.value("requests", 0) + 1;
    const char* outcome = r.success ? "completed" : "failed";
    e[outcome] = e.value(outcome, 0) + 1;
  }
  for (const auto& url : urls) {
    std::vector<double> ttft;
    for (const auto& r : records) {
      if (r.success && r.endpoint == url) ttft.push_back(r.ttft_s * 1e3);
    }
    out[url]["mean_ttft_ms"] = ttft.empty() ? 0.0 : core::mean(ttft);
  }
  return out;
}

std::string http_error_class(long status) {
  if (status == 429) return "http_429";
  if (status >= 400 && status < 500) return "http_4xx";
  if (status >= 500 && status < 600) return "http_5xx";
  return "http_other";
}

load_result run_load(const std::vector<prepared_request>& all_requests, const load_settings& s,
                     const std::atomic<bool>* cancel) {
  raise_open_file_limit();
  load_run point(all_requests, s, cancel);
  return point.run();
}

}  // namespace ironbench::serve
