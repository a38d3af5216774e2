#include "serve/measures/goodput_shares.hpp"

#include <fmt/format.h>

#include "serve/measures/latency_metrics.hpp"

namespace ironbench::serve {

json goodput_shares(const std::vector<request_record>& records, double duration_s, const goodput_slo& slo) {
  if (!any_objective(slo)) return json::object();
  const auto& table = latency_metric_table();
  std::vector<std::size_t> good_alone(table.size(), 0);
  std::size_t good = 0;
  std::int64_t good_tokens = 0;
  for (const auto& r : records) {
    if (!r.success) continue;
    bool meets_all = true;
    for (std::size_t i = 0; i < table.size(); ++i) {
      const bool meets = meets_objective(table[i], r, slo);
      good_alone[i] += meets ? 1 : 0;
      meets_all = meets_all && meets;
    }
    if (meets_all) {
      ++good;
      good_tokens += r.output_len;
    }
  }
  const auto share = [&](std::size_t n) {
    return records.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(records.size());
  };
  json out;
  out["slo_attainment"] = share(good);
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].goodput && slo.*table[i].goodput) {
      out[fmt::format("slo_attainment_{}", table[i].name)] = share(good_alone[i]);
    }
  }
  out["goodput_requests"] = good;
  out["token_goodput"] = static_cast<double>(good_tokens) / (duration_s > 0 ? duration_s : 1.0);
  return out;
}

}  // namespace ironbench::serve
