#include "serve/point/steady_state_window.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace ironbench::serve {
namespace {

// Times of one request computed two ways (its end; its first token plus the gaps) may differ in
// the last bits: the window's bounds allow for that.
constexpr double time_slack_s = 1e-9;

double request_end_s(const request_record& r) { return r.sent_s + r.e2el_s; }

// The first moment `target` requests are in flight at once (send to end), if ever.
std::optional<double> first_reaching_concurrency(const std::vector<request_record>& records, std::size_t target) {
  std::vector<std::pair<double, int>> events;
  for (const auto& r : records) {
    events.emplace_back(r.sent_s, +1);
    events.emplace_back(request_end_s(r), -1);
  }
  std::sort(events.begin(), events.end());  // at equal times the end (-1) comes first
  long long current = 0;
  for (const auto& [time, delta] : events) {
    current += delta;
    if (current >= static_cast<long long>(target)) return time;
  }
  return std::nullopt;
}

const char* steady_rule_text(const point_load& load) {
  return load.scheduled ? "from the first completed request's end to the first end after the last send"
                        : "from the first moment max-concurrency requests were in flight to the first end after "
                          "the last send";
}

}  // namespace

std::optional<steady_window> steady_state_window(const std::vector<request_record>& records, const point_load& load,
                                                 std::string& why) {
  if (records.empty()) {
    why = "no request was sent";
    return std::nullopt;
  }
  if (!load.scheduled && load.concurrency == 0) {
    why = "every request was sent at once (request rate inf without --max-concurrency): no load was held";
    return std::nullopt;
  }
  double last_send = -std::numeric_limits<double>::infinity();
  for (const auto& r : records) last_send = std::max(last_send, r.sent_s);
  double end = std::numeric_limits<double>::infinity();
  for (const auto& r : records) {
    if (request_end_s(r) > last_send + time_slack_s) end = std::min(end, request_end_s(r));
  }
  steady_window w;
  w.end_s = end;
  if (load.scheduled) {
    double first_end = std::numeric_limits<double>::infinity();
    for (const auto& r : records) {
      if (r.success) first_end = std::min(first_end, request_end_s(r));
    }
    if (std::isinf(first_end)) {
      why = "no request completed";
      return std::nullopt;
    }
    w.start_s = first_end;
  } else {
    const auto target = std::min(load.concurrency, records.size());
    const auto reached = first_reaching_concurrency(records, target);
    if (!reached) {
      why = fmt::format("{} requests were never in flight at once", target);
      return std::nullopt;
    }
    w.start_s = *reached;
  }
  if (!(w.end_s > w.start_s)) {
    why = load.scheduled ? "every request was sent before the first one completed: the point was all ramp-up and drain"
                         : "the drain began before the load was reached";
    return std::nullopt;
  }
  return w;
}

json steady_state_metrics(const std::vector<request_record>& records, const point_load& load,
                          const metric_selection& selection) {
  std::string why;
  const auto w = steady_state_window(records, load, why);
  if (!w) return {{"window", nullptr}, {"reason", why}};
  const double length = w->end_s - w->start_s;
  std::vector<request_record> inside;
  double tokens = 0;
  std::size_t completed_in_window = 0;
  const auto in_window = [&](double t) { return t > w->start_s + time_slack_s && t <= w->end_s + time_slack_s; };
  for (const auto& r : records) {
    if (r.sent_s >= w->start_s - time_slack_s && request_end_s(r) <= w->end_s + time_slack_s) inside.push_back(r);
    if (!r.success) continue;
    if (in_window(request_end_s(r))) ++completed_in_window;
    if (r.output_len <= 0) continue;
    // A request's tokens spread evenly over its token events (as the timeline counts them).
    const double per_event = static_cast<double>(r.output_len) / static_cast<double>(r.itl_s.size() + 1);
    double t = r.sent_s + r.ttft_s;
    if (in_window(t)) tokens += per_event;
    for (const double gap : r.itl_s) {
      t += gap;
      if (in_window(t)) tokens += per_event;
    }
  }
  json out = {{"start_s", w->start_s},
              {"end_s", w->end_s},
              {"duration_s", length},
              {"rule", steady_rule_text(load)},
              {"requests", inside.size()},
              {"output_tokens", tokens},
              {"output_throughput", tokens / length},
              {"request_throughput", static_cast<double>(completed_in_window) / length}};
  const auto whole = serving_metrics(inside, length, {}, selection);
  out["completed"] = whole.at("completed");
  for (const auto& [key, value] : whole.items()) {
    if (key.size() > 3 && key.ends_with("_ms")) out[key] = value;
  }
  return out;
}

}  // namespace ironbench::serve
