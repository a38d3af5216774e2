// Goodput as users read it, beside vLLM's request_goodput (requests meeting every SLO per
// second): the share of the requests sent that met every SLO (SLO attainment), the share that
// met each SLO alone, and token goodput, the output tokens of the requests within every SLO
// per second. The SLOs are --goodput's (ttft, tpot, e2el in ms), judged per request as vLLM
// judges them: TPOT = (E2EL - TTFT) / (output tokens - 1), 0 for a one-token answer.
#pragma once

#include <vector>

#include "core/json.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// With at least one SLO set: slo_attainment (share of all requests sent, failed ones
/// included, that completed within every SLO), slo_attainment_{metric} (within that SLO
/// alone, for each one set), goodput_requests (their count) and token_goodput (their
/// output tokens / duration_s, tok/s). An empty object without an SLO; shares are 0 with no
/// request.
[[nodiscard]] json goodput_shares(const std::vector<request_record>& records, double duration_s,
                                  const goodput_slo& slo);

}  // namespace ironbench::serve
