#include "telemetry/case_telemetry.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <vector>

#include "telemetry/gpu_sampler.hpp"
#include "telemetry/series_summary.hpp"

namespace ironbench::telemetry {
namespace {

json unavailable(const std::string& reason) { return {{"available", false}, {"reason", reason}}; }

// Opens the device's GPU in `library`, or says why not.
std::shared_ptr<const gpu_telemetry_device> open_gpu(const opened_library& library, const core::device_info& device,
                                                     std::string& why) {
  if (!library.library) {
    why = library.unavailable_reason;
    return nullptr;
  }
  const auto bus_id = device.properties.value("pci_bus_id", std::string());
  if (bus_id.empty()) {
    why = "telemetry unavailable: the device has no PCI bus id";
    return nullptr;
  }
  auto opened = library.library->open_device(bus_id, why);
  if (!opened) why = "telemetry unavailable: " + why;
  return opened;
}

class sampling_monitor final : public core::case_monitor {
 public:
  sampling_monitor(std::shared_ptr<const gpu_telemetry_device> device, std::string source,
                   std::chrono::milliseconds interval)
      : source_(std::move(source)), interval_(interval), sampler_(std::move(device), interval) {}

  void measured_between(const core::time_window& window) override { window_ = window; }

  core::case_observation finish() override {
    const auto samples = sampler_.stop();
    core::case_observation seen;
    seen.summary = summarize(samples);
    seen.summary["available"] = true;
    seen.summary["source"] = source_;
    seen.summary["interval_ms"] = interval_.count();
    seen.series = json::array();
    for (const auto& s : samples) seen.series.push_back(to_json(s));
    // The case's metrics (SM clock, power, temperature, energy) are those of its measurement
    // where at least two samples fell in it, not of its setup and checking.
    std::vector<gpu_sample> measured;
    if (window_) {
      const auto since_start = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(t - sampler_.started()).count();
      };
      measured = samples_within(samples, since_start(window_->begin), since_start(window_->end));
    }
    const bool over_measurement = measured.size() >= 2;
    seen.metrics = telemetry_metrics(over_measurement ? measured : samples);
    seen.summary["metrics_over"] = over_measurement ? "the measurement" : "the whole case";
    if (over_measurement) seen.summary["measurement"] = summarize(measured);
    return seen;
  }

 private:
  std::string source_;
  std::chrono::milliseconds interval_;
  gpu_sampler sampler_;
  std::optional<core::time_window> window_;
};

class unavailable_monitor final : public core::case_monitor {
 public:
  explicit unavailable_monitor(std::string reason) : reason_(std::move(reason)) {}
  core::case_observation finish() override { return {unavailable(reason_), nullptr, {}, std::nullopt}; }

 private:
  std::string reason_;
};

// Each library is opened the first time a GPU of its vendor asks for it, and only then.
const opened_library& nvml_library_once() {
  static const opened_library nvml = open_nvml();
  return nvml;
}
const opened_library& rocm_smi_library_once() {
  static const opened_library rocm = open_rocm_smi();
  return rocm;
}

// The management library of each GPU kind: one row per vendor.
struct telemetry_row {
  core::device_kind kind;
  const opened_library& (*library)();
};
constexpr telemetry_row telemetry_libraries[] = {
    {core::device_kind::cuda, nvml_library_once},
    {core::device_kind::hip, rocm_smi_library_once},
};

}  // namespace

const opened_library& library_for(core::device_kind kind) {
  static const opened_library none{nullptr, "telemetry unavailable: not a GPU"};
  for (const auto& row : telemetry_libraries) {
    if (row.kind == kind) return row.library();
  }
  return none;
}

void describe_gpu_telemetry(core::device_info& device) {
  if (!core::is_gpu(device)) return;
  std::string why;
  const auto& library = library_for(device.kind);
  const auto opened = open_gpu(library, device, why);
  if (!opened) {
    device.properties["telemetry"] = unavailable(why);
    return;
  }
  auto info = opened->static_info();
  info["available"] = true;
  info["source"] = library.library->description();
  device.properties["telemetry"] = std::move(info);
}

core::case_monitor_factory gpu_case_monitors(const opened_library& library, std::chrono::milliseconds interval) {
  return [library, interval](const core::device_info& device) -> std::unique_ptr<core::case_monitor> {
    if (!core::is_gpu(device)) return nullptr;
    std::string why;
    auto opened = open_gpu(library, device, why);
    if (!opened) return std::make_unique<unavailable_monitor>(why);
    return std::make_unique<sampling_monitor>(std::move(opened), library.library->description(), interval);
  };
}

core::case_monitor_factory gpu_case_monitors(std::chrono::milliseconds interval) {
  return [interval](const core::device_info& device) -> std::unique_ptr<core::case_monitor> {
    if (!core::is_gpu(device)) return nullptr;
    return gpu_case_monitors(library_for(device.kind), interval)(device);
  };
}

}  // namespace ironbench::telemetry
