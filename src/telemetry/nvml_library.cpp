#include "telemetry/nvml_library.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/shared_library.hpp"

namespace ironbench::telemetry {
namespace {

// NVML's C ABI (nvml.h): functions return nvmlReturn_t (0 = success).
using nvml_return = int;
using nvml_device = struct nvml_device_opaque*;
struct nvml_utilization {
  unsigned int gpu;
  unsigned int memory;
};
struct nvml_memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// nvmlFieldValue_t: one field read by nvmlDeviceGetFieldValues.
struct nvml_field_value {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp_us;
  long long latency_us;
  int value_type;  ///< nvmlValueType_t
  nvml_return status;
  union {
    double d;
    int si;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    unsigned short us;
  } value;
};
static_assert(sizeof(nvml_field_value) == 40, "nvmlFieldValue_t is 40 bytes");
constexpr unsigned nvml_field_power_instant = 186;  // NVML_FI_DEV_POWER_INSTANT, milliwatts

// A field's value as a number, whatever its nvmlValueType_t.
std::optional<double> field_number(const nvml_field_value& f) {
  if (f.status != 0) return std::nullopt;
  switch (f.value_type) {
    case 0: return f.value.d;
    case 1: return f.value.ui;
    case 2: return static_cast<double>(f.value.ul);
    case 3: return static_cast<double>(f.value.ull);
    case 4: return static_cast<double>(f.value.sll);
    case 5: return f.value.si;
    case 6: return f.value.us;
    default: return std::nullopt;
  }
}

// nvmlEventSet_t and nvmlEventData_t, for XID events.
using nvml_event_set = struct nvml_event_set_opaque*;
struct nvml_event_data {
  nvml_device device;
  unsigned long long event_type;
  unsigned long long event_data;  ///< the XID
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
constexpr unsigned long long nvml_event_xid_critical = 0x8;  // nvmlEventTypeXidCriticalError: every XID

constexpr int nvml_clock_sm = 1;
constexpr int nvml_clock_memory = 2;
constexpr int nvml_temperature_gpu = 0;

struct nvml_api {
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml_return) = nullptr;
  nvml_return (*driver_version)(char*, unsigned) = nullptr;
  nvml_return (*by_pci_bus_id)(const char*, nvml_device*) = nullptr;
  nvml_return (*utilization)(nvml_device, nvml_utilization*) = nullptr;
  nvml_return (*memory)(nvml_device, nvml_memory*) = nullptr;
  nvml_return (*power)(nvml_device, unsigned*) = nullptr;
  nvml_return (*energy)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*clock)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*max_clock)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*temperature)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*throttle)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*mig_mode)(nvml_device, unsigned*, unsigned*) = nullptr;
  nvml_return (*virtualization)(nvml_device, int*) = nullptr;
  nvml_return (*power_limit)(nvml_device, unsigned*) = nullptr;
  nvml_return (*field_values)(nvml_device, int, nvml_field_value*) = nullptr;
  // health, for `ironbench doctor`
  nvml_return (*default_power_limit)(nvml_device, unsigned*) = nullptr;
  nvml_return (*persistence)(nvml_device, int*) = nullptr;
  nvml_return (*ecc_errors)(nvml_device, int, int, unsigned long long*) = nullptr;
  nvml_return (*remapped_rows)(nvml_device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  nvml_return (*retired_pending)(nvml_device, int*) = nullptr;
  // hardware error deltas (hardware_error_counters.hpp)
  nvml_return (*pcie_replays)(nvml_device, unsigned*) = nullptr;
  nvml_return (*event_set_create)(nvml_event_set*) = nullptr;
  nvml_return (*register_events)(nvml_device, unsigned long long, nvml_event_set) = nullptr;
  nvml_return (*event_set_wait)(nvml_event_set, nvml_event_data*, unsigned) = nullptr;
  nvml_return (*event_set_free)(nvml_event_set) = nullptr;
};

constexpr int nvml_memory_error_corrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int nvml_memory_error_uncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int nvml_volatile_ecc = 0;              // NVML_VOLATILE_ECC: since the driver loaded

// The XID events of one GPU, from an event set registered for them.
class nvml_xid_listener final : public xid_listener {
 public:
  nvml_xid_listener(std::shared_ptr<const nvml_api> api, nvml_event_set set) : api_(std::move(api)), set_(set) {}
  nvml_xid_listener(const nvml_xid_listener&) = delete;
  nvml_xid_listener& operator=(const nvml_xid_listener&) = delete;
  ~nvml_xid_listener() override { api_->event_set_free(set_); }

  std::vector<unsigned> take() override {
    std::vector<unsigned> xids;
    nvml_event_data data{};
    // Waiting 0 ms returns each queued event, then NVML_ERROR_TIMEOUT; 4096 bounds a storm.
    while (xids.size() < 4096 && api_->event_set_wait(set_, &data, 0) == 0) {
      if ((data.event_type & nvml_event_xid_critical) != 0) xids.push_back(static_cast<unsigned>(data.event_data));
    }
    return xids;
  }

 private:
  std::shared_ptr<const nvml_api> api_;
  nvml_event_set set_;
};

class nvml_device_handle final : public gpu_telemetry_device {
 public:
  nvml_device_handle(std::shared_ptr<const nvml_api> api, nvml_device device, std::string driver)
      : api_(std::move(api)),
        device_(device),
        driver_(std::move(driver)),
        instant_power_(instant_power_mw().has_value()) {}

  gpu_sample sample() const override {
    gpu_sample s;
    const auto& f = *api_;
    if (nvml_utilization u{}; f.utilization && f.utilization(device_, &u) == 0) s.utilization_percent = u.gpu;
    if (nvml_memory m{}; f.memory && f.memory(device_, &m) == 0) s.memory_used_bytes = static_cast<double>(m.used);
    // nvmlDeviceGetPowerUsage averages over one second on Ampere and later GPUs (GA100
    // excepted), which smears short cases: the instantaneous field where the driver has it.
    if (const auto mw = instant_power_ ? instant_power_mw() : std::nullopt) {
      s.power_w = *mw / 1000.0;
    } else if (unsigned avg_mw = 0; f.power && f.power(device_, &avg_mw) == 0) {
      s.power_w = avg_mw / 1000.0;
    }
    if (unsigned long long mj = 0; f.energy && f.energy(device_, &mj) == 0)
      s.energy_j = static_cast<double>(mj) / 1000.0;
    if (unsigned mhz = 0; f.clock && f.clock(device_, nvml_clock_sm, &mhz) == 0) s.sm_clock_mhz = mhz;
    if (unsigned mhz = 0; f.clock && f.clock(device_, nvml_clock_memory, &mhz) == 0) s.memory_clock_mhz = mhz;
    if (unsigned c = 0; f.temperature && f.temperature(device_, nvml_temperature_gpu, &c) == 0) s.temperature_c = c;
    if (unsigned long long bits = 0; f.throttle && f.throttle(device_, &bits) == 0) s.throttle_reasons = bits;
    return s;
  }

  json static_info() const override {
    const auto& f = *api_;
    json info = {{"library", "nvml"}, {"driver_version", driver_}};
    info["power_reading"] = instant_power_ ? "instantaneous (NVML_FI_DEV_POWER_INSTANT)"
                                           : "nvmlDeviceGetPowerUsage (a one-second average on Ampere and later)";
    if (unsigned mw = 0; f.power_limit && f.power_limit(device_, &mw) == 0) info["power_limit_w"] = mw / 1000.0;
    if (unsigned mhz = 0; f.max_clock && f.max_clock(device_, nvml_clock_sm, &mhz) == 0) info["sm_clock_max_mhz"] = mhz;
    if (unsigned current = 0, pending = 0; f.mig_mode && f.mig_mode(device_, &current, &pending) == 0) {
      info["mig_mode"] = nvml_mig_mode_name(current);
    } else {
      info["mig_mode"] = "not supported";
    }
    if (int mode = 0; f.virtualization && f.virtualization(device_, &mode) == 0) {
      info["virtualization_mode"] = nvml_virtualization_mode_name(mode);
    }
    add_health(info);
    return info;
  }

  device_error_counters error_counters() const override {
    device_error_counters out;
    const auto& f = *api_;
    out.source = "nvml";
    read_memory_errors(out);
    if (unsigned replays = 0; f.pcie_replays && f.pcie_replays(device_, &replays) == 0) {
      out.counters["pcie_replays"] = replays;
    } else {
      out.not_read.emplace_back("pcie_replays: nvmlDeviceGetPcieReplayCounter not answered");
    }
    return out;
  }

  std::unique_ptr<xid_listener> listen_for_xids(std::string& why) const override {
    const auto& f = *api_;
    if (!f.event_set_create || !f.register_events || !f.event_set_wait || !f.event_set_free) {
      why = "this NVML lacks the event set functions";
      return nullptr;
    }
    nvml_event_set set = nullptr;
    if (const auto status = f.event_set_create(&set); status != 0) {
      why = fmt::format("nvmlEventSetCreate: {}", f.error_string(status));
      return nullptr;
    }
    if (const auto status = f.register_events(device_, nvml_event_xid_critical, set); status != 0) {
      why = fmt::format("nvmlDeviceRegisterEvents: {}", f.error_string(status));
      f.event_set_free(set);
      return nullptr;
    }
    return std::make_unique<nvml_xid_listener>(api_, set);
  }

 private:
  // ECC counts since the driver loaded, and remapped rows (Ampere and later) or retired pages
  // (older GPUs): what `ironbench doctor` and the hardware error deltas both read.
  void read_memory_errors(device_error_counters& out) const {
    const auto& f = *api_;
    for (const auto& [type, name] : {std::pair{nvml_memory_error_corrected, "ecc_corrected_volatile"},
                                     std::pair{nvml_memory_error_uncorrected, "ecc_uncorrected_volatile"}}) {
      if (unsigned long long count = 0; f.ecc_errors && f.ecc_errors(device_, type, nvml_volatile_ecc, &count) == 0) {
        out.counters[name] = count;
      } else {
        out.not_read.push_back(std::string(name) + ": ECC not enabled or not reported");
      }
    }
    if (unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
        f.remapped_rows && f.remapped_rows(device_, &corrected, &uncorrected, &pending, &failed) == 0) {
      out.counters["remapped_rows_correctable"] = corrected;
      out.counters["remapped_rows_uncorrectable"] = uncorrected;
      out.counters["remapped_rows_pending"] = pending != 0 ? 1 : 0;
      out.counters["remapping_failed"] = failed != 0 ? 1 : 0;
    } else if (int retired = 0; f.retired_pending && f.retired_pending(device_, &retired) == 0) {
      out.counters["retired_pages_pending"] = retired != 0 ? 1 : 0;
    } else {
      out.not_read.emplace_back("remapped rows and retired pages: not reported");
    }
  }

  // What `ironbench doctor` judges: the default power limit, persistence, ECC errors, and
  // memory waiting to be retired or remapped (each only where the driver answers).
  void add_health(json& info) const {
    const auto& f = *api_;
    if (unsigned mw = 0; f.default_power_limit && f.default_power_limit(device_, &mw) == 0) {
      info["default_power_limit_w"] = mw / 1000.0;
    }
    if (int mode = 0; f.persistence && f.persistence(device_, &mode) == 0) {
      info["persistence_mode"] = mode != 0 ? "enabled" : "disabled";
    }
    device_error_counters memory;
    read_memory_errors(memory);
    const auto& c = memory.counters;
    if (c.count("ecc_uncorrected_volatile") != 0) info["ecc_uncorrected_volatile"] = c.at("ecc_uncorrected_volatile");
    if (c.count("remapping_failed") != 0) {
      info["remapped_rows"] = c.at("remapped_rows_correctable") + c.at("remapped_rows_uncorrectable");
      info["remapped_rows_pending"] = c.at("remapped_rows_pending") != 0;
      info["remapping_failed"] = c.at("remapping_failed") != 0;
    } else if (c.count("retired_pages_pending") != 0) {
      info["retired_pages_pending"] = c.at("retired_pages_pending") != 0;
    }
  }

  std::optional<double> instant_power_mw() const {
    if (!api_->field_values) return std::nullopt;
    nvml_field_value field{};
    field.field_id = nvml_field_power_instant;
    if (api_->field_values(device_, 1, &field) != 0) return std::nullopt;
    return field_number(field);
  }

  std::shared_ptr<const nvml_api> api_;
  nvml_device device_;
  std::string driver_;
  bool instant_power_;  ///< the driver answers NVML_FI_DEV_POWER_INSTANT
};

class nvml final : public gpu_telemetry_library {
 public:
  nvml(std::unique_ptr<shared_library> library, std::shared_ptr<const nvml_api> api, std::string driver)
      : library_(std::move(library)), api_(std::move(api)), driver_(std::move(driver)) {}
  ~nvml() override { api_->shutdown(); }

  std::string description() const override { return fmt::format("nvml (driver {}, {})", driver_, library_->name()); }

  std::unique_ptr<gpu_telemetry_device> open_device(const std::string& pci_bus_id, std::string& why) const override {
    nvml_device device = nullptr;
    const auto status = api_->by_pci_bus_id(pci_bus_id.c_str(), &device);
    if (status != 0) {
      why = fmt::format("nvml does not know PCI bus id {}: {}", pci_bus_id, api_->error_string(status));
      return nullptr;
    }
    return std::make_unique<nvml_device_handle>(api_, device, driver_);
  }

 private:
  std::unique_ptr<shared_library> library_;
  std::shared_ptr<const nvml_api> api_;
  std::string driver_;
};

}  // namespace

std::string nvml_virtualization_mode_name(int mode) {
  switch (mode) {
    case 0: return "none";
    case 1: return "passthrough";
    case 2: return "vgpu";
    case 3: return "host_vgpu";
    case 4: return "host_vsga";
    default: return fmt::format("mode_{}", mode);
  }
}

std::string nvml_mig_mode_name(unsigned mode) {
  if (mode == 0) return "disabled";
  if (mode == 1) return "enabled";
  return fmt::format("mode_{}", mode);
}

opened_library open_nvml() {
  std::vector<std::string> names;
  if (const char* path = std::getenv("IRONBENCH_NVML_LIBRARY"); path != nullptr && *path != '\0') {
    names.emplace_back(path);
  } else {
    names = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  }
  auto library = std::make_unique<shared_library>(names);
  if (!library->loaded()) return {nullptr, "telemetry unavailable: " + library->error()};
  auto api = std::make_shared<nvml_api>();
  api->init = library->function<decltype(api->init)>("nvmlInit_v2");
  api->shutdown = library->function<decltype(api->shutdown)>("nvmlShutdown");
  api->error_string = library->function<decltype(api->error_string)>("nvmlErrorString");
  api->driver_version = library->function<decltype(api->driver_version)>("nvmlSystemGetDriverVersion");
  api->by_pci_bus_id = library->function<decltype(api->by_pci_bus_id)>("nvmlDeviceGetHandleByPciBusId_v2");
  if (!api->init || !api->shutdown || !api->error_string || !api->by_pci_bus_id) {
    return {nullptr, fmt::format("telemetry unavailable: {} lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2",
                                 library->name())};
  }
  api->utilization = library->function<decltype(api->utilization)>("nvmlDeviceGetUtilizationRates");
  api->memory = library->function<decltype(api->memory)>("nvmlDeviceGetMemoryInfo");
  api->power = library->function<decltype(api->power)>("nvmlDeviceGetPowerUsage");
  api->energy = library->function<decltype(api->energy)>("nvmlDeviceGetTotalEnergyConsumption");
  api->clock = library->function<decltype(api->clock)>("nvmlDeviceGetClockInfo");
  api->max_clock = library->function<decltype(api->max_clock)>("nvmlDeviceGetMaxClockInfo");
  api->temperature = library->function<decltype(api->temperature)>("nvmlDeviceGetTemperature");
  api->throttle = library->function<decltype(api->throttle)>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!api->throttle)
    api->throttle = library->function<decltype(api->throttle)>("nvmlDeviceGetCurrentClocksThrottleReasons");
  api->mig_mode = library->function<decltype(api->mig_mode)>("nvmlDeviceGetMigMode");
  api->virtualization = library->function<decltype(api->virtualization)>("nvmlDeviceGetVirtualizationMode");
  api->power_limit = library->function<decltype(api->power_limit)>("nvmlDeviceGetPowerManagementLimit");
  api->field_values = library->function<decltype(api->field_values)>("nvmlDeviceGetFieldValues");
  api->default_power_limit =
      library->function<decltype(api->default_power_limit)>("nvmlDeviceGetPowerManagementDefaultLimit");
  api->persistence = library->function<decltype(api->persistence)>("nvmlDeviceGetPersistenceMode");
  api->ecc_errors = library->function<decltype(api->ecc_errors)>("nvmlDeviceGetTotalEccErrors");
  api->remapped_rows = library->function<decltype(api->remapped_rows)>("nvmlDeviceGetRemappedRows");
  api->retired_pending = library->function<decltype(api->retired_pending)>("nvmlDeviceGetRetiredPagesPendingStatus");
  api->pcie_replays = library->function<decltype(api->pcie_replays)>("nvmlDeviceGetPcieReplayCounter");
  api->event_set_create = library->function<decltype(api->event_set_create)>("nvmlEventSetCreate");
  api->register_events = library->function<decltype(api->register_events)>("nvmlDeviceRegisterEvents");
  api->event_set_wait = library->function<decltype(api->event_set_wait)>("nvmlEventSetWait_v2");
  api->event_set_free = library->function<decltype(api->event_set_free)>("nvmlEventSetFree");

  if (const auto status = api->init(); status != 0) {
    return {nullptr, fmt::format("telemetry unavailable: nvmlInit failed: {}", api->error_string(status))};
  }
  char driver[96] = {};
  if (!api->driver_version || api->driver_version(driver, sizeof driver) != 0) driver[0] = '\0';
  return {std::make_shared<nvml>(std::move(library), std::move(api), driver[0] != '\0' ? driver : "unknown"), {}};
}

}  // namespace ironbench::telemetry
