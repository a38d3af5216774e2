#include "serve/workload/arrival_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"

namespace ironbench::serve {

std::vector<double> arrival_times(std::size_t count, double rate, double burstiness, std::uint64_t seed) {
  if (!(rate > 0)) throw usage_error("the request rate must be positive (or inf)");
  if (!(burstiness > 0)) throw usage_error("burstiness must be positive");
  std::vector<double> times(count, 0.0);
  if (std::isinf(rate)) return times;
  std::mt19937_64 generator(seed);
  std::gamma_distribution<double> gap(burstiness, 1.0 / (rate * burstiness));
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    times[i] = t;
    t += gap(generator);
  }
  check_schedule_span(times, fmt::format("--request-rate {:g} with --burstiness {:g}", rate, burstiness));
  return times;
}

void check_schedule_span(const std::vector<double>& times, const std::string& what) {
  if (times.empty()) return;
  const double last = times.back();
  if (!(last <= max_schedule_s)) {
    throw usage_error(
        fmt::format("{}: the last of {} requests would be sent {:.3g} s after the first; a point's "
                    "schedule may last {:g} days at most",
                    what, times.size(), last, max_schedule_s / 86400));
  }
}

ramp_strategy parse_ramp_strategy(const std::string& text) {
  if (text == "linear") return ramp_strategy::linear;
  if (text == "exponential") return ramp_strategy::exponential;
  throw usage_error(fmt::format("--ramp-up-strategy takes linear or exponential, not '{}'", text));
}

const char* to_string(ramp_strategy strategy) {
  switch (strategy) {
    case ramp_strategy::linear: return "linear";
    case ramp_strategy::exponential: return "exponential";
    case ramp_strategy::none: break;
  }
  return "none";
}

void check_ramp_up(const ramp_up& ramp) {
  if (!ramp.enabled()) return;
  for (const auto& [flag, value] :
       {std::pair{"--ramp-up-start-rps", ramp.start_rps}, std::pair{"--ramp-up-end-rps", ramp.end_rps}}) {
    if (!(value > 0) || std::isinf(value)) {
      throw usage_error(
          fmt::format("{} must be a positive, finite number of requests/s, not {:g} (a ramp from 0 would never send "
                      "its second request)",
                      flag, value));
    }
  }
  if (ramp.start_rps > ramp.end_rps) {
    throw usage_error(fmt::format("--ramp-up-start-rps {:g} is above --ramp-up-end-rps {:g}: a ramp-up rises",
                                  ramp.start_rps, ramp.end_rps));
  }
}

double ramp_rate(const ramp_up& ramp, double progress) {
  const double p = std::clamp(progress, 0.0, 1.0);
  if (ramp.strategy == ramp_strategy::exponential) return ramp.start_rps * std::pow(ramp.end_rps / ramp.start_rps, p);
  return ramp.start_rps + (ramp.end_rps - ramp.start_rps) * p;
}

namespace {

// Λ over [0, min(t, duration)]: the ramp's expected arrivals by time t within the ramp.
double ramp_integral(const ramp_up& ramp, double duration_s, double t) {
  const double a = ramp.start_rps;
  if (ramp.strategy == ramp_strategy::exponential) {
    const double g = std::log(ramp.end_rps / a) / duration_s;  // rate = a e^(g t)
    return g > 0 ? a * std::expm1(g * t) / g : a * t;
  }
  const double k = (ramp.end_rps - a) / duration_s;  // rate = a + k t
  return a * t + k * t * t / 2;
}

// Λ⁻¹(u): when the ramp has expected u arrivals (the end rate going on past the duration).
double ramp_time_of(const ramp_up& ramp, double duration_s, double u) {
  const double a = ramp.start_rps;
  const double whole = ramp_integral(ramp, duration_s, duration_s);
  if (u >= whole) return duration_s + (u - whole) / ramp.end_rps;
  if (ramp.strategy == ramp_strategy::exponential) {
    const double g = std::log(ramp.end_rps / a) / duration_s;
    return g > 0 ? std::log1p(u * g / a) / g : u / a;
  }
  const double k = (ramp.end_rps - a) / duration_s;
  return 2 * u / (a + std::sqrt(a * a + 2 * k * u));  // the root of a t + k t^2 / 2 = u, stable at k = 0
}

}  // namespace

double ramp_expected_arrivals(const ramp_up& ramp, double duration_s, double t) {
  if (t <= duration_s) return ramp_integral(ramp, duration_s, std::max(0.0, t));
  return ramp_integral(ramp, duration_s, duration_s) + (t - duration_s) * ramp.end_rps;
}

std::vector<double> ramp_arrival_times(std::size_t count, const ramp_up& ramp, double burstiness, std::uint64_t seed) {
  check_ramp_up(ramp);
  if (!(burstiness > 0)) throw usage_error("burstiness must be positive");
  std::vector<double> times(count, 0.0);
  std::mt19937_64 generator(seed);
  std::gamma_distribution<double> unit_gap(burstiness, 1.0 / burstiness);  // mean 1
  const double last = static_cast<double>(std::max<std::size_t>(count, 2) - 1);
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    times[i] = t;
    t += unit_gap(generator) / ramp_rate(ramp, static_cast<double>(i) / last);
  }
  check_schedule_span(times, fmt::format("--ramp-up-strategy {} from {:g} to {:g} requests/s", to_string(ramp.strategy),
                                         ramp.start_rps, ramp.end_rps));
  return times;
}

std::vector<double> timed_arrival_times(double duration_s, std::size_t cap, double rate, const ramp_up& ramp,
                                        double burstiness, std::uint64_t seed) {
  if (!(duration_s > 0) || !(duration_s <= max_schedule_s)) {
    throw usage_error(fmt::format("a point's duration must be positive and at most {:g} days", max_schedule_s / 86400));
  }
  if (!(burstiness > 0)) throw usage_error("burstiness must be positive");
  if (!ramp.enabled()) {
    if (!(rate > 0)) throw usage_error("the request rate must be positive (or inf)");
    if (std::isinf(rate)) return std::vector<double>(cap, 0.0);
  }
  check_ramp_up(ramp);
  std::vector<double> times;
  std::mt19937_64 generator(seed);
  std::gamma_distribution<double> unit_gap(burstiness, 1.0 / burstiness);  // mean 1
  double u = 0;  // the arrivals' clock: expected arrivals so far
  while (times.size() < cap) {
    const double t = ramp.enabled() ? ramp_time_of(ramp, duration_s, u) : u / rate;
    if (!(t < duration_s)) break;
    times.push_back(t);
    u += unit_gap(generator);
  }
  return times;
}

}  // namespace ironbench::serve
