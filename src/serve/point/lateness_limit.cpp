#include "serve/point/lateness_limit.hpp"

#include <fmt/format.h>

namespace ironbench::serve {

lateness_limit lateness_limit_for(double floor_ms, double mean_gap_ms, double median_e2el_ms) {
  lateness_limit limit{floor_ms, fmt::format("the floor {:g} ms (--max-lateness-ms)", floor_ms)};
  double load_ms = 0;
  std::string basis;
  if (mean_gap_ms > 0) {
    load_ms = lateness_share_of_gap * mean_gap_ms;
    basis = fmt::format("{:g} % of the {:.3g} ms mean gap between sends", 100 * lateness_share_of_gap, mean_gap_ms);
  }
  if (median_e2el_ms > 0 && (load_ms == 0 || lateness_share_of_e2el * median_e2el_ms < load_ms)) {
    load_ms = lateness_share_of_e2el * median_e2el_ms;
    basis = fmt::format("{:g} % of the {:.3g} ms median E2EL", 100 * lateness_share_of_e2el, median_e2el_ms);
  }
  if (load_ms > limit.limit_ms) limit = {load_ms, basis};
  return limit;
}

}  // namespace ironbench::serve
