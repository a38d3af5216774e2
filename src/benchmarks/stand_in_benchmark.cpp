#include "benchmarks/stand_in_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/copy_axes.hpp"
#include "benchmarks/gemm_gpu_axes.hpp"
#include "benchmarks/stream_gpu_axes.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"
#include "device/stand_in_gpus.hpp"

namespace ironbench::benchmarks {
namespace {

using core::device_info;
using core::parameter_set;

// The pure C++ half of one GPU benchmark.
struct gpu_planning {
  std::string (*unsupported_device)(const device_info&);
  std::vector<core::axis> (*axes)(const device_info&);
  void (*check)(const parameter_set&, const device_info&);
  std::uint64_t (*memory)(const parameter_set&, const device_info&);
  std::string (*unsupported_case)(const parameter_set&, const device_info&);
  bool (*first_look)(const parameter_set&, const device_info&);
  std::string (*summary)(const device_info&);
  core::case_cost (*cost)(const parameter_set&, const device_info&);
  core::case_footprint (*footprint)(const parameter_set&);
  const char* peak;  ///< "flops" or "bandwidth": what % of peak the rates are reported against
};

std::uint64_t arrays(const parameter_set& p, std::uint64_t count) {
  return core::bytes_times(count, static_cast<std::uint64_t>(p.integer("size")));
}

const gpu_planning* planning_of(const std::string& name) {
  static const gpu_planning gemm{[](const device_info&) { return std::string(); },
                                 gpu_gemm_axes,
                                 [](const parameter_set& p, const device_info&) { check_gpu_gemm_params(p); },
                                 gpu_gemm_memory_required,
                                 gpu_gemm_case_unsupported,
                                 gpu_gemm_in_first_look,
                                 gpu_gemm_first_look_summary,
                                 gpu_gemm_cost,
                                 [](const parameter_set&) { return core::case_footprint{}; },
                                 "flops"};
  static const gpu_planning stream{[](const device_info&) { return std::string(); },
                                   gpu_stream_axes,
                                   [](const parameter_set& p, const device_info&) { check_gpu_stream_params(p); },
                                   [](const parameter_set& p, const device_info&) { return arrays(p, 3); },
                                   [](const parameter_set&, const device_info&) { return std::string(); },
                                   gpu_stream_in_first_look,
                                   gpu_stream_first_look_summary,
                                   gpu_stream_cost,
                                   [](const parameter_set&) { return core::case_footprint{}; },
                                   "bandwidth"};
  static const gpu_planning copy{[](const device_info&) { return std::string(); },
                                 [](const device_info&) { return copy_axes(); },
                                 check_copy_params,
                                 [](const parameter_set& p, const device_info&) { return arrays(p, 2); },
                                 [](const parameter_set& p, const device_info&) { return copy_case_unsupported(p); },
                                 [](const parameter_set& p, const device_info&) { return copy_in_first_look(p); },
                                 [](const device_info&) { return copy_first_look_summary(); },
                                 copy_cost,
                                 copy_footprint,
                                 ""};
  static const gpu_planning p2p{p2p_unsupported,
                                p2p_axes,
                                check_copy_params,
                                [](const parameter_set& p, const device_info&) { return arrays(p, 2); },
                                p2p_case_unsupported,
                                [](const parameter_set& p, const device_info&) { return p2p_in_first_look(p); },
                                [](const device_info&) { return p2p_first_look_summary(); },
                                p2p_cost,
                                p2p_footprint,
                                ""};
  if (name == "gemm") return &gemm;
  if (name == "stream") return &stream;
  if (name == "copy") return &copy;
  if (name == "p2p") return &p2p;
  return nullptr;
}

void sleep_s(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// The number at `key` of `j` where `j` is an object that has one.
std::optional<double> stand_in_number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// A normal stand-in's repetition where it models a measured rate (the stand-in's
// measured_share of the device's peak, device/stand_in_gpus.hpp): GEMM's FLOPs, STREAM's bytes.
std::optional<double> measured_repetition(const std::string& benchmark, const core::case_cost& cost,
                                          const parameter_set& params, const device_info& device) {
  const auto& props = device.properties;
  const auto& shares = props.at("stand_in").value("measured_share", json::object());
  if (benchmark == "gemm" && params.contains("dtype")) {
    const auto share = stand_in_number(shares.value("gemm", json::object()), params.string("dtype").c_str());
    const auto peak = stand_in_number(
        props.value("peak_flops", json::object()).value(params.string("dtype"), json::object()), "flops_per_second");
    if (share && peak && *share > 0 && *peak > 0) {
      return std::max(cost.work.flops / (*peak * *share), cost_calibration::gpu_launch_s);
    }
  } else if (benchmark == "stream") {
    const auto share = stand_in_number(shares, "stream");
    const auto peak = stand_in_number(props.value("peak_bandwidth", json::object()), "bytes_per_second");
    if (share && peak && *share > 0 && *peak > 0) {
      return std::max(cost.work.bytes() / (*peak * *share), cost_calibration::gpu_launch_s);
    }
  }
  return std::nullopt;
}

class stand_in_benchmark final : public core::benchmark {
 public:
  stand_in_benchmark(std::string name, const gpu_planning& planning) : name_(std::move(name)), planning_(planning) {}

  std::string name() const override { return name_; }
  std::string summary() const override { return name_ + " on stand-in GPUs"; }
  std::string unsupported_reason(const device_info& device) const override {
    if (!device::is_stand_in(device)) return "stand-in GPUs only";
    return planning_.unsupported_device(device);
  }
  std::vector<core::axis> axes(const device_info& device) const override { return planning_.axes(device); }
  void check_params(const parameter_set& params, const device_info& device) const override {
    planning_.check(params, device);
  }
  std::uint64_t memory_required(const parameter_set& params, const device_info& device) const override {
    return planning_.memory(params, device);
  }
  bool in_first_look(const parameter_set& params, const device_info& device) const override {
    return planning_.first_look(params, device);
  }
  std::string first_look_summary(const device_info& device) const override { return planning_.summary(device); }
  core::case_cost cost(const parameter_set& params, const device_info& device) const override {
    return planning_.cost(params, device);
  }
  core::case_footprint footprint(const parameter_set& params, const device_info&) const override {
    return planning_.footprint(params);
  }

  void run(core::case_state& state) const override {
    const auto& params = state.params();
    const auto& device = state.device();
    if (auto reason = planning_.unsupported_case(params, device); !reason.empty()) state.skip(reason);
    const auto& stand_in = device.properties.at("stand_in");
    const double scale = stand_in.value("time_scale", 0.01);
    const auto behaviour = stand_in.value("behaviour", std::string("normal"));
    if (behaviour == "hang") {
      for (;;) sleep_s(1);  // a GPU that stopped answering: only the run's time limit ends this case
    }
    if (behaviour == "fail") throw error(fmt::format("{} stopped answering (a stand-in made to fail)", device.id));

    const auto cost = planning_.cost(params, device);
    sleep_s(cost.setup_s * scale);
    state.add_flops(cost.work.flops);
    state.add_bytes_read(cost.work.bytes_read);
    state.add_bytes_written(cost.work.bytes_written);
    set_peak(state, params);

    // The modelled repetition; a link of unknown speed is taken as a PCIe 5 x16 (50 GB/s) host
    // link or an NVLink (400 GB/s) peer link.
    double repetition = measured_repetition(name_, cost, params, device).value_or(cost.repetition_s);
    if (repetition <= 0) {
      const bool peer = !planning_.footprint(params).other_devices.empty();
      repetition = std::max(cost.work.bytes(), 1.0) / (peer ? 400e9 : 50e9);
    }
    if (behaviour == "slow") repetition /= stand_in.value("rate_share", device::stand_in_slow_share);
    auto& settings = state.mutable_settings();
    if (cost.aimed_reps > 0) {
      std::size_t fit = cost.aimed_reps;
      if (settings.max_time_s / repetition < static_cast<double>(fit)) {
        fit = static_cast<std::size_t>(settings.max_time_s / repetition);
      }
      settings.min_reps = std::max(settings.min_reps, fit);
      settings.max_reps = std::max(settings.max_reps, settings.min_reps);
    }
    if (!cost.batched) settings.min_sample_s = 0;
    settings.warmup_s *= scale;
    settings.min_time_s *= scale;
    settings.max_time_s *= scale;
    double owed = 0;  // sleep owed, paid once it reaches a millisecond
    std::size_t sample = 0;
    state.measure([&](std::size_t n) {
      owed += static_cast<double>(n) * (repetition + cost.untimed_per_sample_s) * scale;
      if (owed >= 1e-3) {
        sleep_s(owed);
        owed = 0;
      }
      const double wobble = (sample++ % 2 == 0 ? 1.0 : -1.0) * 1e-3;  // a little noise, as measured times have
      return static_cast<double>(n) * repetition * (1 + wobble);
    });
    sleep_s(cost.verify_s * scale);
    state.note("stand_in", fmt::format("modelled, nothing measured ({} x the modelled time slept)", scale));
    state.note("verification", "stand-in: its modelled result is taken as checked");
    state.require(behaviour != "wrong", "wrong result: a stand-in made to fail its verification");
  }

 private:
  void set_peak(core::case_state& state, const parameter_set& params) const {
    const auto& props = state.device().properties;
    if (std::string(planning_.peak) == "flops" && params.contains("dtype")) {
      const auto& peak = props.value("peak_flops", json::object()).value(params.string("dtype"), json::object());
      const auto& value = peak.value("flops_per_second", json());
      if (value.is_number()) state.set_peak_flops({value.get<double>(), peak.value("source", std::string())});
    } else if (std::string(planning_.peak) == "bandwidth") {
      const auto& peak = props.value("peak_bandwidth", json::object());
      const auto& value = peak.value("bytes_per_second", json());
      if (value.is_number()) state.set_peak_bandwidth({value.get<double>(), peak.value("source", std::string())});
    }
  }

  std::string name_;
  const gpu_planning& planning_;
};

}  // namespace

std::unique_ptr<core::benchmark> make_stand_in(const std::string& name) {
  const auto* planning = planning_of(name);
  if (planning == nullptr) return nullptr;
  return std::make_unique<stand_in_benchmark>(name, *planning);
}

}  // namespace ironbench::benchmarks
