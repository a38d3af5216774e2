#include "serve/sweep/search_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ironbench::serve {
namespace {

// An upper bound of probe_send_s that never grows with the rate: max(duration, (floor - 1) /
// rate), and at most (cap - 1) / rate.
double send_bound_s(const search_settings& s, double rate) {
  if (!(rate > 0)) return std::numeric_limits<double>::infinity();
  double bound = std::max(s.probe_duration_s, static_cast<double>(s.min_probe_requests - 1) / rate);
  if (s.max_probe_requests > 0) bound = std::min(bound, static_cast<double>(s.max_probe_requests - 1) / rate);
  return bound;
}

// The loads a descent from `start` passes through: start, start / 2, ... down to the lowest.
std::vector<double> descent(const search_settings& s, double start) {
  const bool whole = s.axis == search_axis::concurrency;
  const double lowest = lowest_search_load(s, start);
  std::vector<double> loads;
  for (double load = whole ? std::max(1.0, std::round(start)) : start; load >= lowest && loads.size() < 64;
       load = whole ? std::floor(load / 2) : load / 2) {
    loads.push_back(load);
  }
  return loads;
}

// A note when --num-prompts makes the first probe shorter than --search-probe-duration.
std::string short_probe_note(const search_settings& s, const search_plan& plan) {
  const double rate = plan.rate_at(plan.start);
  if (s.max_probe_requests <= 0 || !(rate > 0) ||
      rate * s.probe_duration_s <= static_cast<double>(s.max_probe_requests)) {
    return "";
  }
  return fmt::format(
      "SLO search: --num-prompts {} caps each probe: at {:.4g} requests/s one sends for {:.3g} s, not {:g} s; a probe "
      "too short for a queue to build can pass a load the server does not sustain\n",
      s.max_probe_requests, rate, probe_send_s(s, rate), s.probe_duration_s);
}

}  // namespace

double lowest_search_load(const search_settings& s, double start) {
  return s.axis == search_axis::concurrency ? 1 : start / 64;
}

std::int64_t probe_requests(const search_settings& s, double requests_per_s) {
  const double wanted = std::ceil(std::max(0.0, requests_per_s) * s.probe_duration_s);
  auto count = std::max<std::int64_t>(s.min_probe_requests, std::isfinite(wanted) && wanted < 1e15
                                                                ? static_cast<std::int64_t>(wanted)
                                                                : std::int64_t{1} << 50);
  if (s.max_probe_requests > 0) count = std::min(count, s.max_probe_requests);
  return count;
}

double probe_send_s(const search_settings& s, double requests_per_s) {
  if (!(requests_per_s > 0)) return std::numeric_limits<double>::infinity();
  return static_cast<double>(probe_requests(s, requests_per_s) - 1) / requests_per_s;
}

double probe_time_limit_s(const search_settings& s, const search_plan& plan, double load) {
  return probe_send_s(s, plan.rate_at(load)) + plan.drain_s;
}

double probes_time_bound_s(const search_settings& s, const search_plan& plan) {
  const auto loads = descent(s, plan.start);
  const auto probe_bound = [&](double load) {
    return send_bound_s(s, plan.rate_at(load)) + plan.drain_s + probe_overhead_s;
  };
  // Descending to loads[k] (k = 0: going up instead), then every other probe at a load above it.
  double worst = 0, descended = 0;
  const auto probes = static_cast<std::size_t>(std::max(1, s.max_probes));
  for (std::size_t k = 0; k < loads.size() && k < probes; ++k) {
    descended += probe_bound(loads[k]);
    worst = std::max(worst, descended + static_cast<double>(probes - k - 1) * probe_bound(loads[k]));
  }
  return worst;
}

std::string plan_text(const search_settings& s, const search_plan& plan) {
  const bool by_rate = s.axis == search_axis::rate;
  const auto cap =
      s.max_probe_requests > 0 ? fmt::format(", at most {} (--num-prompts)", s.max_probe_requests) : std::string();
  return fmt::format(
             "SLO search ({}) plan: start at {:.4g}{} ({}); at most {} probes, each about {:g} s of requests at its "
             "load "
             "(at least {} requests{}), cut {:.3g} s after its last send; at most {:.0f} s in all{}\n",
             by_rate ? "rate" : "concurrency", plan.start, by_rate ? " requests/s" : " in flight", plan.start_basis,
             s.max_probes, s.probe_duration_s, s.min_probe_requests, cap, plan.drain_s,
             plan.estimate_s + probes_time_bound_s(s, plan),
             plan.estimate_s > 0 ? fmt::format(" (the capacity estimate's {:.1f} s included)", plan.estimate_s)
                                 : std::string()) +
         short_probe_note(s, plan);
}

}  // namespace ironbench::serve
