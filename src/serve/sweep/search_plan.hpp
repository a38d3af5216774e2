// How long an SLO search may take, decided before it starts: each probe is about
// --search-probe-duration of requests at its load (at least --search-min-requests, at most an
// explicit --num-prompts), and is cut once it runs past its time limit (the time to send its
// requests plus a drain allowance); the search's time bound is the worst path search_limit
// can take through such probes. Pure functions, tested without a server.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "serve/sweep/slo_search.hpp"

namespace ironbench::serve {

/// Time allowed per probe on top of its limit, for building its requests and reporting it.
inline constexpr double probe_overhead_s = 1;

/// The requests of a probe whose load is `requests_per_s`: max(min_probe_requests,
/// ceil(requests_per_s x probe_duration_s)), then at most max_probe_requests when that is set.
[[nodiscard]] std::int64_t probe_requests(const search_settings& settings, double requests_per_s);

/// The time a probe at `requests_per_s` takes to send its requests: (requests - 1) / rate.
[[nodiscard]] double probe_send_s(const search_settings& settings, double requests_per_s);

/// What the search will do, fixed before its first probe.
struct search_plan {
  double start = 1;         ///< the first load
  std::string start_basis;  ///< where it comes from: "the capacity estimate", "--search-start"
  /// Requests per second expected at a load (rate: the load itself; concurrency: from the
  /// capacity estimate): sizes each probe and its time limit.
  std::function<double(double load)> rate_at;
  double drain_s = 60;    ///< time allowed after a probe's last send for its requests to end
  double estimate_s = 0;  ///< time the capacity estimate took (in the total)
};

/// A probe's time limit at `load`: the time to send its requests plus the drain allowance. A
/// probe still running then is cut (what is in flight is cancelled) and misses the objectives.
[[nodiscard]] double probe_time_limit_s(const search_settings& settings, const search_plan& plan, double load);

/// The longest the probes can take: over every path of search_limit (doubling up from the
/// start, or halving down to its lowest load and bisecting above it), the sum of its probes'
/// time limits plus probe_overhead_s each, with at most max_probes probes.
[[nodiscard]] double probes_time_bound_s(const search_settings& settings, const search_plan& plan);

/// The plan as printed before the search starts: its start, probes at most, what sizes a
/// probe, and the time bound in all (the capacity estimate included); and a second line when an
/// explicit --num-prompts makes the first probe shorter than its duration.
[[nodiscard]] std::string plan_text(const search_settings& settings, const search_plan& plan);

/// The lowest load search_limit probes from `start`: rate start / 64, concurrency 1.
[[nodiscard]] double lowest_search_load(const search_settings& settings, double start);

}  // namespace ironbench::serve
