#include "serve/arrival_schedule.hpp"

#include <fmt/format.h>

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

}  // namespace ironbench::serve
