#include "device/stand_in_gpus.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "device/gpu/gpu_specs.hpp"

namespace ironbench::device {
namespace {

constexpr const char* gpus_variable = "IRONBENCH_STAND_IN_GPUS";

std::optional<stand_in_behaviour> behaviour_named(std::string_view name) {
  if (name == "normal") return stand_in_behaviour::normal;
  if (name == "slow") return stand_in_behaviour::slow;
  if (name == "fail") return stand_in_behaviour::fail;
  if (name == "wrong") return stand_in_behaviour::wrong;
  if (name == "hang") return stand_in_behaviour::hang;
  return std::nullopt;
}

const char* name_of(stand_in_behaviour b) {
  switch (b) {
    case stand_in_behaviour::normal: return "normal";
    case stand_in_behaviour::slow: return "slow";
    case stand_in_behaviour::fail: return "fail";
    case stand_in_behaviour::wrong: return "wrong";
    case stand_in_behaviour::hang: return "hang";
  }
  return "normal";
}

}  // namespace

stand_in_behaviour stand_in_spec::behaviour_of(const std::string& id) const {
  const auto it = behaviours.find(id);
  return it == behaviours.end() ? stand_in_behaviour::normal : it->second;
}

double stand_in_spec::rate_share_of(const std::string& id) const {
  if (behaviour_of(id) != stand_in_behaviour::slow) return 1;
  const auto it = slow_shares.find(id);
  return it == slow_shares.end() ? stand_in_slow_share : it->second;
}

stand_in_spec parse_stand_in_spec(std::string_view gpus, std::string_view time_scale) {
  stand_in_spec spec;
  const auto items = split(gpus);
  const auto count = parse_integer(items.empty() ? std::string_view() : std::string_view(items.front()), gpus_variable);
  if (count < 1 || count > 64)
    throw usage_error(fmt::format("{}: the count must be 1 to 64, not {}", gpus_variable, count));
  spec.count = static_cast<int>(count);
  for (std::size_t i = 1; i < items.size(); ++i) {
    const auto& item = items[i];
    const auto equals = item.find('=');
    const auto id = trim_copy(std::string_view(item).substr(0, equals));
    auto named = equals == std::string::npos ? std::string_view() : trim(std::string_view(item).substr(equals + 1));
    std::optional<double> share;  // slow:SHARE
    if (named.substr(0, 5) == "slow:") {
      share = parse_number(named.substr(5), gpus_variable);
      if (!(*share > 0 && *share < 1)) {
        throw usage_error(fmt::format("{}: the share of slow:SHARE must be above 0 and below 1, not '{}'",
                                      gpus_variable, named.substr(5)));
      }
      named = named.substr(0, 4);
    }
    const auto behaviour = equals == std::string::npos ? std::nullopt : behaviour_named(named);
    if (!behaviour) {
      throw usage_error(fmt::format("{}: '{}' is not ID=normal|slow|slow:SHARE|fail|wrong|hang", gpus_variable, item));
    }
    bool known = false;
    for (int d = 0; d < spec.count; ++d) known = known || id == fmt::format("cuda:{}", d);
    if (!known)
      throw usage_error(fmt::format("{}: no stand-in '{}' among cuda:0..cuda:{}", gpus_variable, id, spec.count - 1));
    spec.behaviours[id] = *behaviour;
    if (share) spec.slow_shares[id] = *share;
  }
  if (!trim(time_scale).empty()) {
    spec.time_scale = parse_number(time_scale, "IRONBENCH_STAND_IN_TIME_SCALE");
    if (!(spec.time_scale > 0) || spec.time_scale > 1) {
      throw usage_error("IRONBENCH_STAND_IN_TIME_SCALE must be above 0 and at most 1");
    }
  }
  return spec;
}

std::optional<stand_in_spec> stand_in_gpus_from_environment() {
  const char* gpus = std::getenv(gpus_variable);
  if (gpus == nullptr || *gpus == '\0') return std::nullopt;
  const char* scale = std::getenv("IRONBENCH_STAND_IN_TIME_SCALE");
  return parse_stand_in_spec(gpus, scale == nullptr ? "" : scale);
}

std::string stand_in_pci_bus_id(int index) { return fmt::format("00FF:{:02X}:00.0", index); }

std::vector<core::device_info> stand_in_gpus(const stand_in_spec& spec) {
  gpu_peak_inputs h200;
  h200.name = "NVIDIA H200";
  h200.arch = "sm_90";
  h200.units = 132;
  h200.max_clock_mhz = 1980;
  h200.memory_clock_mhz = 3201;
  h200.memory_bus_bits = 6016;
  std::vector<core::device_info> out;
  for (int i = 0; i < spec.count; ++i) {
    core::device_info d;
    d.id = fmt::format("cuda:{}", i);
    d.kind = core::device_kind::cuda;
    d.index = i;
    d.name = "stand-in GPU (NVIDIA H200)";
    d.memory_bytes = 150109880320;  // an H200's, as the runtime reports it
    json peers = json::array();
    for (int other = 0; other < spec.count; ++other) {
      if (other != i) peers.push_back(fmt::format("cuda:{}", other));
    }
    d.properties = json{{"vendor", "cuda"},
                        {"arch", h200.arch},
                        {"multiprocessors", h200.units},
                        {"sm_clock_max_mhz", h200.max_clock_mhz},
                        {"memory_clock_max_mhz", h200.memory_clock_mhz},
                        {"memory_bus_width_bits", h200.memory_bus_bits},
                        {"l2_cache_bytes", 62914560},
                        {"gpu_count", spec.count},
                        {"peers", std::move(peers)},
                        {"peak_flops", gpu_peak_flops(h200)},
                        {"peak_bandwidth", gpu_peak_bandwidth(h200)},
                        {"pci_bus_id", stand_in_pci_bus_id(i)},
                        {"stand_in",
                         {{"behaviour", name_of(spec.behaviour_of(d.id))},
                          {"rate_share", spec.rate_share_of(d.id)},
                          {"time_scale", spec.time_scale},
                          {"measured_share",
                           {{"gemm",
                             {{"bf16", stand_in_h200_bf16_share},
                              {"fp16", stand_in_h200_fp16_share},
                              {"fp8", stand_in_h200_fp8_share}}},
                            {"stream", stand_in_h200_stream_share}}},
                          {"source", fmt::format("{} (no GPU is measured)", gpus_variable)}}}};
    out.push_back(std::move(d));
  }
  return out;
}

bool is_stand_in(const core::device_info& device) { return device.properties.contains("stand_in"); }

}  // namespace ironbench::device
