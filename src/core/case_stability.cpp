#include "core/case_stability.hpp"

#include <fmt/format.h>

namespace ironbench::core {

namespace {
// p90 - p10 of a normal distribution, in standard deviations: 2 x 1.28155.
constexpr double normal_p10_to_p90 = 2.5631;
}  // namespace

double robust_cv(const summary& times) {
  if (!(times.median > 0)) return 0;
  return (times.p90 - times.p10) / (normal_p10_to_p90 * times.median);
}

std::string instability::describe() const {
  auto text = fmt::format("robust CV {:.0f} % (CV {:.0f} %) over {} samples (unstable above {:.0f} %)", robust_cv * 100,
                          cv * 100, samples, max_cv * 100);
  if (load) {
    text +=
        fmt::format("; other processes used {:.0f} % of the host's CPUs and the hypervisor stole {:.0f} % meanwhile",
                    load->others_percent, load->steal_percent);
  }
  return text;
}

std::optional<instability> judge_stability(const measurement& timing, double max_cv,
                                           const std::optional<host_load>& load) {
  if (!(max_cv > 0) || timing.samples_s.size() < min_samples_for_stability) return std::nullopt;
  const double spread = robust_cv(timing.time_s);
  if (!(spread > max_cv)) return std::nullopt;
  return instability{timing.time_s.cv, spread, max_cv, timing.samples_s.size(), load};
}

}  // namespace ironbench::core
