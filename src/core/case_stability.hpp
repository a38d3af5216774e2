// Whether a measured case is stable enough for its median to stand for it. A case whose samples
// scatter as widely as noise (a copy at 0.26 GB/s beside neighbours at 150 GB/s, a CV of several
// hundred percent) is still verified, so it stays valid, but it is marked unstable with its
// spread and with what else was running on the host while it was measured; the console, JSON,
// report, `validate` and `compare` all show the mark (docs/methodology.md, "Unstable cases").
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/measurement.hpp"

namespace ironbench::core {

/// What else used the host's CPUs while one case ran, in percent of all the host's CPU time.
struct host_load {
  double others_percent = 0;  ///< processes other than ironbench
  double steal_percent = 0;   ///< taken by the hypervisor for other guests
};

/// The spread of the middle 80 % of the samples as a CV: (p90 - p10) / (2.5631 x median), which
/// equals stddev / mean for normally distributed samples but, unlike it, is not moved by the few
/// samples a preemption stretches a hundredfold (a 40 us sample that loses a 4 ms tick). 0 when
/// the median is not positive.
[[nodiscard]] double robust_cv(const summary& times);

/// Why a case is unstable.
struct instability {
  double cv = 0;         ///< stddev / mean of its samples (a fraction)
  double robust_cv = 0;  ///< see robust_cv(): what the rule judges
  double max_cv = 0;     ///< the threshold it passed (measurement_settings::unstable_cv)
  std::size_t samples = 0;
  std::optional<host_load> load;  ///< what else ran meanwhile, where it was seen

  /// "robust CV 85 % (CV 679 %) over 12 samples (unstable above 50 %); other processes used 48 %
  /// of the host's CPUs and the hypervisor stole 0 % meanwhile".
  [[nodiscard]] std::string describe() const;
};

/// Fewest samples the rule judges: with fewer, a spread says nothing.
inline constexpr std::size_t min_samples_for_stability = 3;

/// The rule: a case with at least min_samples_for_stability samples whose robust CV is above
/// `max_cv` is unstable. `max_cv` <= 0 turns the rule off.
[[nodiscard]] std::optional<instability> judge_stability(const measurement& timing, double max_cv,
                                                         const std::optional<host_load>& load);

}  // namespace ironbench::core
