#include "serve/goodput_shares.hpp"

namespace ironbench::serve {

json goodput_shares(const std::vector<request_record>& records, double duration_s, const goodput_slo& slo) {
  if (!slo.ttft_ms && !slo.tpot_ms && !slo.e2el_ms) return json::object();
  std::size_t good = 0, good_ttft = 0, good_tpot = 0, good_e2el = 0;
  std::int64_t good_tokens = 0;
  for (const auto& r : records) {
    if (!r.success) continue;
    // One output token has no TPOT: it meets a TPOT objective (vLLM counts it as 0).
    const double tpot_ms = r.output_len > 1 ? (r.e2el_s - r.ttft_s) / static_cast<double>(r.output_len - 1) * 1e3 : 0.0;
    const bool ttft = !slo.ttft_ms || r.ttft_s * 1e3 <= *slo.ttft_ms;
    const bool tpot = !slo.tpot_ms || tpot_ms <= *slo.tpot_ms;
    const bool e2el = !slo.e2el_ms || r.e2el_s * 1e3 <= *slo.e2el_ms;
    good_ttft += ttft ? 1 : 0;
    good_tpot += tpot ? 1 : 0;
    good_e2el += e2el ? 1 : 0;
    if (ttft && tpot && e2el) {
      ++good;
      good_tokens += r.output_len;
    }
  }
  const auto share = [&](std::size_t n) {
    return records.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(records.size());
  };
  json out;
  out["slo_attainment"] = share(good);
  if (slo.ttft_ms) out["slo_attainment_ttft"] = share(good_ttft);
  if (slo.tpot_ms) out["slo_attainment_tpot"] = share(good_tpot);
  if (slo.e2el_ms) out["slo_attainment_e2el"] = share(good_e2el);
  out["goodput_requests"] = good;
  out["token_goodput"] = static_cast<double>(good_tokens) / (duration_s > 0 ? duration_s : 1.0);
  return out;
}

}  // namespace ironbench::serve
