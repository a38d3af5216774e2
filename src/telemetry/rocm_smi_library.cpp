// ROCm SMI (librocm_smi64), loaded with dlopen; its C ABI declared here (rocm_smi.h).
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <optional>

#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/pci_address.hpp"
#include "telemetry/shared_library.hpp"

namespace ironbench::telemetry {
namespace {

using rsmi_status = int;
struct rsmi_version {
  std::uint32_t major, minor, patch;
  const char* build;
};
// rsmi_frequencies_t before ROCm 6 and since (a has_deep_sleep flag was added in front).
struct rsmi_frequencies_v5 {
  std::uint32_t num_supported;
  std::uint32_t current;
  std::uint64_t frequency[32];
};
struct rsmi_frequencies_v6 {
  bool has_deep_sleep;
  std::uint32_t num_supported;
  std::uint32_t current;
  std::uint64_t frequency[33];
};
constexpr int rsmi_clock_system = 0;  // RSMI_CLK_TYPE_SYS (shader clock)
constexpr int rsmi_clock_memory = 4;  // RSMI_CLK_TYPE_MEM
constexpr int rsmi_memory_vram = 0;
constexpr std::uint32_t rsmi_sensor_edge = 0;
constexpr std::uint32_t rsmi_sensor_junction = 1;
constexpr int rsmi_temperature_current = 0;
constexpr int rsmi_component_driver = 0;

struct rsmi_api {
  rsmi_status (*init)(std::uint64_t) = nullptr;
  rsmi_status (*shut_down)() = nullptr;
  rsmi_status (*version)(rsmi_version*) = nullptr;
  rsmi_status (*version_string)(int, char*, std::uint32_t) = nullptr;
  rsmi_status (*device_count)(std::uint32_t*) = nullptr;
  rsmi_status (*pci_id)(std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*busy_percent)(std::uint32_t, std::uint32_t*) = nullptr;
  rsmi_status (*memory_usage)(std::uint32_t, int, std::uint64_t*) = nullptr;
  rsmi_status (*socket_power)(std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*average_power)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*energy)(std::uint32_t, std::uint64_t*, float*, std::uint64_t*) = nullptr;
  rsmi_status (*clock)(std::uint32_t, int, void*) = nullptr;
  rsmi_status (*temperature)(std::uint32_t, std::uint32_t, int, std::int64_t*) = nullptr;
  rsmi_status (*compute_partition)(std::uint32_t, char*, std::uint32_t) = nullptr;
  rsmi_status (*memory_partition)(std::uint32_t, char*, std::uint32_t) = nullptr;
  rsmi_status (*power_cap)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  // hardware error deltas: rsmi_error_count_t is {correctable, uncorrectable} (a deferred count
  // follows in newer releases, hence a larger reply buffer)
  rsmi_status (*ecc_enabled)(std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*ecc_count)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status (*pci_replays)(std::uint32_t, std::uint64_t*) = nullptr;
  std::uint32_t major_version = 0;
};

// rsmi_gpu_block_t: the RAS blocks whose ECC counts ROCm SMI reports, by bit.
struct rsmi_block {
  std::uint32_t bit;
  const char* name;
};
constexpr rsmi_block rsmi_blocks[] = {{0x1, "umc"},    {0x2, "sdma"},      {0x4, "gfx"},   {0x8, "mmhub"},
                                      {0x10, "athub"}, {0x20, "pcie_bif"}, {0x40, "hdp"},  {0x80, "xgmi_wafl"},
                                      {0x100, "df"},   {0x200, "smn"},     {0x400, "sem"}, {0x800, "mp0"},
                                      {0x1000, "mp1"}, {0x2000, "fuse"}};

bool plausible_clock_hz(std::uint64_t hz) { return hz > 10'000'000 && hz < 10'000'000'000; }

// The current clock in MHz. The struct gained a leading flag around ROCm 6; read the reply in
// the layout the library version suggests, and in the other one when that reads implausibly.
std::optional<double> clock_mhz(const rsmi_api& f, std::uint32_t index, int type) {
  if (!f.clock) return std::nullopt;
  union {
    rsmi_frequencies_v5 v5;
    rsmi_frequencies_v6 v6;
  } reply{};
  if (f.clock(index, type, &reply) != 0) return std::nullopt;
  std::optional<std::uint64_t> old_layout, new_layout;
  if (reply.v5.current < 32 && reply.v5.current < reply.v5.num_supported)
    old_layout = reply.v5.frequency[reply.v5.current];
  if (reply.v6.current < 33 && reply.v6.current < reply.v6.num_supported)
    new_layout = reply.v6.frequency[reply.v6.current];
  const auto& preferred = f.major_version >= 6 ? new_layout : old_layout;
  const auto& other = f.major_version >= 6 ? old_layout : new_layout;
  if (preferred && plausible_clock_hz(*preferred)) return static_cast<double>(*preferred) / 1e6;
  if (other && plausible_clock_hz(*other)) return static_cast<double>(*other) / 1e6;
  return std::nullopt;
}

class rsmi_device final : public gpu_telemetry_device {
 public:
  rsmi_device(std::shared_ptr<const rsmi_api> api, std::uint32_t index, std::string driver)
      : api_(std::move(api)), index_(index), driver_(std::move(driver)) {}

  gpu_sample sample() const override {
    const auto& f = *api_;
    gpu_sample s;
    if (std::uint32_t busy = 0; f.busy_percent && f.busy_percent(index_, &busy) == 0) s.utilization_percent = busy;
    if (std::uint64_t used = 0; f.memory_usage && f.memory_usage(index_, rsmi_memory_vram, &used) == 0) {
      s.memory_used_bytes = static_cast<double>(used);
    }
    if (std::uint64_t uw = 0; f.socket_power && f.socket_power(index_, &uw) == 0) {
      s.power_w = static_cast<double>(uw) / 1e6;
    } else if (f.average_power && f.average_power(index_, 0, &uw) == 0) {
      s.power_w = static_cast<double>(uw) / 1e6;
    }
    std::uint64_t counter = 0, timestamp = 0;
    float resolution_uj = 0;
    if (f.energy && f.energy(index_, &counter, &resolution_uj, &timestamp) == 0) {
      s.energy_j = static_cast<double>(counter) * resolution_uj / 1e6;
    }
    s.sm_clock_mhz = clock_mhz(f, index_, rsmi_clock_system);
    s.memory_clock_mhz = clock_mhz(f, index_, rsmi_clock_memory);
    for (auto sensor : {rsmi_sensor_junction, rsmi_sensor_edge}) {
      std::int64_t millidegrees = 0;
      if (f.temperature && f.temperature(index_, sensor, rsmi_temperature_current, &millidegrees) == 0) {
        s.temperature_c = static_cast<double>(millidegrees) / 1000.0;
        break;
      }
    }
    return s;
  }

  json static_info() const override {
    const auto& f = *api_;
    json info = {{"library", "rocm_smi"}, {"driver_version", driver_}};
    char text[64] = {};
    if (f.compute_partition && f.compute_partition(index_, text, sizeof text) == 0) info["compute_partition"] = text;
    if (f.memory_partition && f.memory_partition(index_, text, sizeof text) == 0) info["memory_partition"] = text;
    if (std::uint64_t uw = 0; f.power_cap && f.power_cap(index_, 0, &uw) == 0) {
      info["power_limit_w"] = static_cast<double>(uw) / 1e6;
    }
    info["virtualization_mode"] = "not reported by rocm_smi";
    return info;
  }

  device_error_counters error_counters() const override {
    const auto& f = *api_;
    device_error_counters out;
    out.source = "rocm_smi";
    std::uint64_t enabled = ~std::uint64_t{0};
    if (f.ecc_enabled && f.ecc_enabled(index_, &enabled) != 0) enabled = ~std::uint64_t{0};
    if (f.ecc_count) {
      for (const auto& block : rsmi_blocks) {
        if ((enabled & block.bit) == 0) continue;
        std::uint64_t reply[4] = {};  // correctable, uncorrectable[, deferred]
        if (f.ecc_count(index_, block.bit, reply) != 0) continue;
        out.counters[fmt::format("ras_{}_ce", block.name)] = reply[0];
        out.counters[fmt::format("ras_{}_ue", block.name)] = reply[1];
      }
    }
    if (out.counters.empty()) out.not_read.emplace_back("RAS error counts: rsmi_dev_ecc_count_get not answered");
    if (std::uint64_t replays = 0; f.pci_replays && f.pci_replays(index_, &replays) == 0) {
      out.counters["pcie_replays"] = replays;
    }
    return out;
  }

 private:
  std::shared_ptr<const rsmi_api> api_;
  std::uint32_t index_;
  std::string driver_;
};

class rocm_smi final : public gpu_telemetry_library {
 public:
  rocm_smi(std::unique_ptr<shared_library> library, std::shared_ptr<const rsmi_api> api, std::string version,
           std::string driver)
      : library_(std::move(library)), api_(std::move(api)), version_(std::move(version)), driver_(std::move(driver)) {}
  ~rocm_smi() override { api_->shut_down(); }

  std::string description() const override {
    return fmt::format("rocm_smi {} (driver {}, {})", version_, driver_, library_->name());
  }

  std::unique_ptr<gpu_telemetry_device> open_device(const std::string& pci_bus_id, std::string& why) const override {
    const auto wanted = parse_pci_bus_id(pci_bus_id);
    if (!wanted) {
      why = fmt::format("unreadable PCI bus id '{}'", pci_bus_id);
      return nullptr;
    }
    std::uint32_t count = 0;
    if (api_->device_count(&count) != 0) count = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      std::uint64_t bdfid = 0;
      if (api_->pci_id(i, &bdfid) == 0 && pci_address_from_bdfid(bdfid) == *wanted) {
        return std::make_unique<rsmi_device>(api_, i, driver_);
      }
    }
    why = fmt::format("rocm_smi knows no GPU at PCI bus id {} ({} GPUs)", pci_bus_id, count);
    return nullptr;
  }

 private:
  std::unique_ptr<shared_library> library_;
  std::shared_ptr<const rsmi_api> api_;
  std::string version_;
  std::string driver_;
};

}  // namespace

opened_library open_rocm_smi() {
  std::vector<std::string> names;
  if (const char* path = std::getenv("IRONBENCH_ROCM_SMI_LIBRARY"); path != nullptr && *path != '\0') {
    names.emplace_back(path);
  } else {
    names = {"librocm_smi64.so",   "librocm_smi64.so.7", "librocm_smi64.so.6",
             "librocm_smi64.so.5", "librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"};
  }
  auto library = std::make_unique<shared_library>(names);
  if (!library->loaded()) return {nullptr, "telemetry unavailable: " + library->error()};
  auto api = std::make_shared<rsmi_api>();
  api->init = library->function<decltype(api->init)>("rsmi_init");
  api->shut_down = library->function<decltype(api->shut_down)>("rsmi_shut_down");
  api->version = library->function<decltype(api->version)>("rsmi_version_get");
  api->version_string = library->function<decltype(api->version_string)>("rsmi_version_str_get");
  api->device_count = library->function<decltype(api->device_count)>("rsmi_num_monitor_devices");
  api->pci_id = library->function<decltype(api->pci_id)>("rsmi_dev_pci_id_get");
  if (!api->init || !api->shut_down || !api->version || !api->device_count || !api->pci_id) {
    return {nullptr, fmt::format("telemetry unavailable: {} lacks rsmi_init or rsmi_dev_pci_id_get", library->name())};
  }
  api->busy_percent = library->function<decltype(api->busy_percent)>("rsmi_dev_busy_percent_get");
  api->memory_usage = library->function<decltype(api->memory_usage)>("rsmi_dev_memory_usage_get");
  api->socket_power = library->function<decltype(api->socket_power)>("rsmi_dev_current_socket_power_get");
  api->average_power = library->function<decltype(api->average_power)>("rsmi_dev_power_ave_get");
  api->energy = library->function<decltype(api->energy)>("rsmi_dev_energy_count_get");
  api->clock = library->function<decltype(api->clock)>("rsmi_dev_gpu_clk_freq_get");
  api->temperature = library->function<decltype(api->temperature)>("rsmi_dev_temp_metric_get");
  api->compute_partition = library->function<decltype(api->compute_partition)>("rsmi_dev_compute_partition_get");
  api->memory_partition = library->function<decltype(api->memory_partition)>("rsmi_dev_memory_partition_get");
  api->power_cap = library->function<decltype(api->power_cap)>("rsmi_dev_power_cap_get");
  api->ecc_enabled = library->function<decltype(api->ecc_enabled)>("rsmi_dev_ecc_enabled_get");
  api->ecc_count = library->function<decltype(api->ecc_count)>("rsmi_dev_ecc_count_get");
  api->pci_replays = library->function<decltype(api->pci_replays)>("rsmi_dev_pci_replay_counter_get");

  if (const auto status = api->init(0); status != 0) {
    return {nullptr, fmt::format("telemetry unavailable: rsmi_init failed (status {})", status)};
  }
  rsmi_version version{};
  std::string version_text = "unknown";
  if (api->version(&version) == 0) {
    api->major_version = version.major;
    version_text = fmt::format("{}.{}.{}", version.major, version.minor, version.patch);
  }
  char driver[96] = {};
  if (!api->version_string || api->version_string(rsmi_component_driver, driver, sizeof driver) != 0) driver[0] = '\0';
  return {std::make_shared<rocm_smi>(std::move(library), std::move(api), version_text,
                                     driver[0] != '\0' ? driver : "unknown"),
          {}};
}

}  // namespace ironbench::telemetry
