#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/statistics.hpp"
#include "serve/client/load_run.hpp"
#include "serve/point/lateness_limit.hpp"

namespace ironbench::serve {
namespace {

// The mean gap between consecutive sends (records are in send order); 0 with one send.
double mean_gap_ms(const std::vector<request_record>& records) {
  if (records.size() < 2) return 0;
  return (records.back().sent_s - records.front().sent_s) * 1e3 / static_cast<double>(records.size() - 1);
}

// The median end-to-end latency of the completed requests; 0 when none completed.
double median_e2el_ms(const std::vector<request_record>& records) {
  std::vector<double> ms;
  for (const auto& r : records) {
    if (r.success) ms.push_back(r.e2el_s * 1e3);
  }
  return ms.empty() ? 0 : core::percentile(ms, 50);
}

// The point's verdict also covers what the server said about lengths: requests whose usage
// could not be right (their lengths are then the client's counts).
void judge_reported_usage(load_result& result) {
  std::size_t implausible = 0, completed = 0;
  std::string first;
  for (const auto& r : result.records) {
    if (!r.success) continue;
    ++completed;
    if (r.usage_problem.empty()) continue;
    if (implausible++ == 0) first = r.usage_problem;
  }
  if (implausible == 0) return;
  const auto why = fmt::format(
      "the server reported implausible usage for {} of {} completed requests (first: {}); their output lengths are "
      "the client's counts",
      implausible, completed, first);
  result.invalid_reason = result.valid ? why : result.invalid_reason + "; " + why;
  result.valid = false;
}

}  // namespace

// A point bounded by time: what ended its sending, and the requests cut at the end of the
// grace period out of the records (they are counted as unfinished, not as failures, nor timed).
void load_run::drain() {
  if (!timed_) return;
  // Every arrival of the duration sent (an open loop), or the prepared requests used up.
  if (result_.interrupted) {
    result_.ended_by = "interrupted";
  } else if (result_.ended_by.empty()) {
    result_.ended_by = schedule_capped_ ? "num_prompts" : "duration";
  }
  result_.unfinished = unfinished_records_.size();
  std::vector<bool> cut(result_.records.size(), false);
  for (const auto i : unfinished_records_) cut[i] = true;
  std::vector<request_record> kept;
  kept.reserve(result_.records.size() - unfinished_records_.size());
  for (std::size_t i = 0; i < result_.records.size(); ++i) {
    if (!cut[i]) kept.push_back(std::move(result_.records[i]));
  }
  result_.records = std::move(kept);
}

// The point's measures of itself: requests not sent, the client's CPU, the span of the sends,
// the lateness and what else used the host's CPUs; then its verdict and the timing's accuracy.
void load_run::finish() {
  result_.turns_dropped = dropped_;
  // A point bounded by time sends what its duration allows: the prepared requests left over
  // were never due, not lost.
  result_.not_sent = timed_ && !result_.interrupted ? 0 : queue_->unsent() - dropped_;
  const double wall = client_.now() - origin_;
  result_.client_cpu = wall > 0 ? (thread_cpu_seconds() - cpu_start_) / wall : 0;
  result_.duration_s = first_send_ >= 0 ? last_end_ - first_send_ : 0;
  result_.first_send_s = std::max(0.0, first_send_);
  if (!lateness_ms_.empty()) {
    result_.lateness_p50_ms = core::percentile(lateness_ms_, 50);
    result_.lateness_p99_ms = core::percentile(lateness_ms_, 99);
    result_.lateness_max_ms = *std::max_element(lateness_ms_.begin(), lateness_ms_.end());
  }
  if (const auto host_cpu_after = platform::read_cpu_times(host_root_); host_cpu_before_ && host_cpu_after) {
    if (const auto c = platform::competition_between(*host_cpu_before_, *host_cpu_after,
                                                     platform::process_cpu_seconds() - process_cpu_start_,
                                                     platform::clock_ticks_per_second())) {
      result_.host_steal_percent = c->steal_percent;
      result_.host_others_percent = c->others_percent;
    }
  }
  judge_schedule(wall);
  judge_reported_usage(result_);
  summarize_timing();
  result_.endpoints = endpoint_breakdown(result_.records, s_.base_urls);
  result_.embedding_dimension = embedding_dimension_.value();
}

// INVALID when the client fell behind its schedule (p99 lateness past the limit, which grows
// with the load), else when its thread was saturated.
void load_run::judge_schedule(double wall) {
  // Over a point of a few milliseconds (every request refused at once) the thread's CPU time,
  // counted from before the first send, is no share of anything: it is not judged.
  constexpr double min_client_cpu_wall_s = 0.2;
  // The limit grows with the load: the mean gap between sends and the median E2EL.
  const auto limit =
      lateness_limit_for(s_.max_lateness_p99_ms, mean_gap_ms(result_.records), median_e2el_ms(result_.records));
  result_.lateness_limit_ms = limit.limit_ms;
  result_.lateness_limit_basis = limit.basis;
  // With an infinite rate and no concurrency limit every request is due at once: the
  // lateness then measures how fast a burst leaves, not whether a schedule was kept.
  const bool timed_schedule = traced_ || s_.ramp.enabled() || !std::isinf(s_.request_rate) || s_.max_concurrency > 0;
  if (timed_schedule && result_.lateness_p99_ms > limit.limit_ms) {
    result_.valid = false;
    result_.invalid_reason = fmt::format("the client fell behind its schedule: p99 lateness {:.3f} ms > {:.3f} ms ({})",
                                         result_.lateness_p99_ms, limit.limit_ms, limit.basis);
    if (result_.host_steal_percent) {
      result_.invalid_reason += fmt::format(
          "; meanwhile the hypervisor stole {:.1f} % and other processes used "
          "{:.1f} % of the host's CPU time",
          *result_.host_steal_percent, *result_.host_others_percent);
    }
  } else if (wall >= min_client_cpu_wall_s && result_.client_cpu > s_.max_client_cpu) {
    result_.valid = false;
    result_.invalid_reason =
        fmt::format("the client thread was saturated ({:.0f} % of a core)", 100 * result_.client_cpu);
  }
}

// How well the point was timed: token events timed together, the share of reads the kernel
// stamped, the socket waits, and against a server's send stamps the delivery delay and ITL error.
void load_run::summarize_timing() {
  result_.token_events_timed_together = timed_together_;
  const auto stamps = client_.receive_stamps();
  result_.kernel_stamped_share =
      stamps.deliveries > 0 ? static_cast<double>(stamps.kernel_stamped) / static_cast<double>(stamps.deliveries) : 0;
  if (!socket_wait_ms_.empty()) {
    result_.socket_wait_p50_ms = core::percentile(socket_wait_ms_, 50);
    result_.socket_wait_p99_ms = core::percentile(socket_wait_ms_, 99);
  }
  if (!delivery_ms_.empty()) {
    result_.ground_truth = {{"stamped_token_events", delivery_ms_.size()},
                            {"delivery_delay_p50_ms", core::percentile(delivery_ms_, 50)},
                            {"delivery_delay_p99_ms", core::percentile(delivery_ms_, 99)}};
    if (!itl_error_ms_.empty()) {
      result_.ground_truth["itl_error_p50_ms"] = core::percentile(itl_error_ms_, 50);
      result_.ground_truth["itl_error_p99_ms"] = core::percentile(itl_error_ms_, 99);
    }
  }
}

}  // namespace ironbench::serve
