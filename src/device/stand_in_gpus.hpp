// Stand-in GPUs: devices that run every GPU benchmark's cases without a GPU, through the cases'
// cost models (the modelled time slept, scaled down; benchmarks/stand_in_benchmark.hpp), so
// that a run's schedule over several GPUs, side by side, with one slow, failing or hung, is
// tested and timed on any machine (tests/integration, bench/default_suite_time.sh). They
// exist only while IRONBENCH_STAND_IN_GPUS is set, and then replace the real GPUs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"

namespace ironbench::device {

/// How one stand-in behaves.
enum class stand_in_behaviour {
  normal,
  slow,   ///< its rates are 0.7 of the others' (a GPU held back: the run names it)
  fail,   ///< every case ends with an error
  wrong,  ///< every case measures, then fails its verification
  hang,   ///< its first case never ends (a GPU that stopped answering)
};

/// Rates of a `slow` stand-in, as a share of a normal one's.
inline constexpr double stand_in_slow_share = 0.7;

struct stand_in_spec {
  int count = 0;
  /// Wall seconds slept per modelled second (IRONBENCH_STAND_IN_TIME_SCALE, default 0.01).
  double time_scale = 0.01;
  std::map<std::string, stand_in_behaviour> behaviours;  ///< by device id; the others: normal

  [[nodiscard]] stand_in_behaviour behaviour_of(const std::string& id) const;
};

/// Parses `gpus`, "COUNT[,ID=BEHAVIOUR...]" (e.g. "4" or "8,cuda:3=slow,cuda:5=hang"; a
/// behaviour is normal, slow, fail, wrong or hang), and `time_scale` (empty: the default, else
/// a number above 0 and at most 1). COUNT is 1 to 64. Throws usage_error.
[[nodiscard]] stand_in_spec parse_stand_in_spec(std::string_view gpus, std::string_view time_scale);

/// The spec from IRONBENCH_STAND_IN_GPUS and IRONBENCH_STAND_IN_TIME_SCALE, or nullopt when
/// the first is unset or empty.
[[nodiscard]] std::optional<stand_in_spec> stand_in_gpus_from_environment();

/// The stand-ins, "cuda:0" ... of kind cuda, each described as an NVIDIA H200 (memory, L2,
/// units, clocks, the datasheet's peaks), every other stand-in its peer, with the property
/// "stand_in" (its behaviour and the time scale).
[[nodiscard]] std::vector<core::device_info> stand_in_gpus(const stand_in_spec& spec);

/// Whether `device` is a stand-in.
[[nodiscard]] bool is_stand_in(const core::device_info& device);

}  // namespace ironbench::device
