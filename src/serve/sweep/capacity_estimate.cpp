#include "serve/sweep/capacity_estimate.hpp"

#include <algorithm>

namespace ironbench::serve {

std::size_t estimate_requests(int concurrency) { return static_cast<std::size_t>(std::max(1, concurrency)) * 8; }

capacity_estimate estimate_capacity(const std::vector<request_record>& records) {
  capacity_estimate e;
  std::vector<double> ends;
  double last_send = 0, first_send = -1;
  for (const auto& r : records) {
    last_send = std::max(last_send, r.sent_s);
    first_send = first_send < 0 ? r.sent_s : std::min(first_send, r.sent_s);
    if (!r.success) continue;
    ends.push_back(r.sent_s + r.e2el_s);
    e.max_e2el_s = std::max(e.max_e2el_s, r.e2el_s);
  }
  e.completed = ends.size();
  if (ends.empty()) {
    e.why = records.empty() ? "no request was sent" : "no request of the burst completed";
    return e;
  }
  std::sort(ends.begin(), ends.end());
  const auto full = static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), last_send) - ends.begin());
  if (full >= 3 && ends[full - 1] > ends[0]) {
    // The least-squares slope of the completions' count against time: completions that come
    // in batches (an engine's sequences finishing in one step) count as a staircase's slope.
    double mean_t = 0, mean_i = 0;
    for (std::size_t i = 0; i < full; ++i) {
      mean_t += ends[i];
      mean_i += static_cast<double>(i);
    }
    mean_t /= static_cast<double>(full);
    mean_i /= static_cast<double>(full);
    double covariance = 0, variance = 0;
    for (std::size_t i = 0; i < full; ++i) {
      covariance += (ends[i] - mean_t) * (static_cast<double>(i) - mean_i);
      variance += (ends[i] - mean_t) * (ends[i] - mean_t);
    }
    e.window_s = ends[full - 1] - ends[0];
    e.requests_per_s = covariance / variance;
  } else {
    e.window_s = ends.back() - first_send;
    if (!(e.window_s > 0)) {
      e.why = "the burst's requests took no measurable time";
      return e;
    }
    e.requests_per_s = static_cast<double>(ends.size()) / e.window_s;
  }
  e.ok = true;
  return e;
}

}  // namespace ironbench::serve
