// Stand-in GPUs: devices that run every GPU benchmark's cases without a GPU, through the cases'
// cost models (the modelled time slept, scaled down; benchmarks/stand_in_benchmark.hpp), so
// that a run's schedule over several GPUs, side by side, with one slow, failing or hung, is
// tested and timed on any machine (tests/integration, bench/default_suite_time.sh), and that
// `validate`'s verdicts on a healthy and a faulty H200 node are (tests/integration/
// validate_stand_in_test.cpp, with the stand-in NVML of tests/fakes/fake_nvml.c). They exist
// only while IRONBENCH_STAND_IN_GPUS is set, and then replace the real GPUs.
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
  slow,   ///< its rates are a share of the others' (0.7 unless said): a GPU held back
  fail,   ///< every case ends with an error
  wrong,  ///< every case measures, then fails its verification
  hang,   ///< its first case never ends (a GPU that stopped answering)
};

/// Rates of a `slow` stand-in, as a share of a normal one's, unless its spec says (slow:SHARE).
inline constexpr double stand_in_slow_share = 0.7;

/// A normal stand-in's rates, as shares of the H200's datasheet peaks: those an NVIDIA H200
/// measured at its default 700 W limit (docs/benchmarks.md, GPU section: cuBLASLt 8192^3 bf16
/// 690 TFLOP/s, fp16 675, fp8 1267; STREAM triad 4354 GB/s), so that a healthy stand-in node
/// measures what a healthy H200 node does. A dtype not listed runs at the cost model's share.
inline constexpr double stand_in_h200_bf16_share = 690.0 / 989.4;
inline constexpr double stand_in_h200_fp16_share = 675.0 / 989.4;
inline constexpr double stand_in_h200_fp8_share = 1267.0 / 1978.9;
inline constexpr double stand_in_h200_stream_share = 4354.0 / 4800.0;

struct stand_in_spec {
  int count = 0;
  /// Wall seconds slept per modelled second (IRONBENCH_STAND_IN_TIME_SCALE, default 0.01).
  double time_scale = 0.01;
  std::map<std::string, stand_in_behaviour> behaviours;  ///< by device id; the others: normal
  std::map<std::string, double> slow_shares;             ///< by device id, where slow:SHARE said

  [[nodiscard]] stand_in_behaviour behaviour_of(const std::string& id) const;
  /// The share of a normal stand-in's rates that `id` reaches: 1, or its slow share.
  [[nodiscard]] double rate_share_of(const std::string& id) const;
};

/// Parses `gpus`, "COUNT[,ID=BEHAVIOUR...]" (e.g. "4" or "8,cuda:3=slow,cuda:5=hang"; a
/// behaviour is normal, slow, slow:SHARE (its rates SHARE times a normal one's, above 0 and
/// below 1: "cuda:1=slow:0.5" runs at half the rate), fail, wrong or hang), and `time_scale`
/// (empty: the default, else a number above 0 and at most 1). COUNT is 1 to 64. Throws
/// usage_error.
[[nodiscard]] stand_in_spec parse_stand_in_spec(std::string_view gpus, std::string_view time_scale);

/// The spec from IRONBENCH_STAND_IN_GPUS and IRONBENCH_STAND_IN_TIME_SCALE, or nullopt when
/// the first is unset or empty.
[[nodiscard]] std::optional<stand_in_spec> stand_in_gpus_from_environment();

/// The PCI bus id of stand-in `index` ("00FF:03:00.0" for cuda:3): in PCI domain 00FF, which
/// no machine has, so that a real NVML asked about a stand-in finds no GPU rather than another
/// one, and a stand-in NVML (tests/fakes/fake_nvml.c, FAKE_NVML_BUS_IDS) answers for each.
[[nodiscard]] std::string stand_in_pci_bus_id(int index);

/// The stand-ins, "cuda:0" ... of kind cuda, each described as an NVIDIA H200 (memory, L2,
/// units, clocks, the datasheet's peaks) at its stand-in PCI bus id, every other stand-in its
/// peer, with the property "stand_in": its behaviour, rate share, the time scale and the
/// measured shares of the peaks it models ("measured_share": {"gemm": {DTYPE: SHARE},
/// "stream": SHARE}).
[[nodiscard]] std::vector<core::device_info> stand_in_gpus(const stand_in_spec& spec);

/// Whether `device` is a stand-in.
[[nodiscard]] bool is_stand_in(const core::device_info& device);

}  // namespace ironbench::device
