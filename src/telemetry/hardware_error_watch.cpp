#include "telemetry/hardware_error_watch.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace ironbench::telemetry {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// amdgpu's ras/<block>_err_count files of the GPU at `bus_id` ("ue: N\nce: N").
void read_amdgpu_ras(const std::string& root, const std::string& bus_id, device_error_counters& out) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(root) / "sys/bus/pci/devices" / lower(bus_id) / "ras";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    const std::string tail = "_err_count";
    if (name.size() <= tail.size() || name.compare(name.size() - tail.size(), tail.size(), tail) != 0) continue;
    std::ifstream in(it->path());
    std::stringstream text;
    text << in.rdbuf();
    parse_amdgpu_ras_count(name.substr(0, name.size() - tail.size()), text.str(), out.counters);
  }
}

std::optional<std::uint64_t> read_count(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

// The host's memory controllers as the kernel's EDAC driver counts their errors
// (sys/devices/system/edac/mc/mcN/{ce,ue}_count); nullopt where there is no EDAC driver.
std::optional<device_error_counters> read_edac(const std::string& root) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(root) / "sys/devices/system/edac/mc";
  device_error_counters out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.rfind("mc", 0) != 0) continue;
    if (const auto ce = read_count(it->path() / "ce_count")) out.counters["edac_" + name + "_ce"] = *ce;
    if (const auto ue = read_count(it->path() / "ue_count")) out.counters["edac_" + name + "_ue"] = *ue;
  }
  if (out.counters.empty()) return std::nullopt;
  out.device = "host";
  out.source = "edac";
  return out;
}

bool has_ras(const device_error_counters& c) {
  return std::any_of(c.counters.begin(), c.counters.end(),
                     [](const auto& kv) { return kv.first.rfind("ras_", 0) == 0; });
}

}  // namespace

struct hardware_error_watch::watched {
  core::device_info device;
  opened_library library;  ///< kept alive with the handle
  std::unique_ptr<gpu_telemetry_device> handle;
  std::unique_ptr<xid_listener> xids;
  std::string why_no_handle;
  std::string why_no_xids;
};

hardware_error_watch::hardware_error_watch(const std::vector<core::device_info>& devices, const std::string& sysfs_root)
    : hardware_error_watch(
          devices, [](core::device_kind kind) -> const opened_library& { return library_for(kind); }, sysfs_root) {}

hardware_error_watch::hardware_error_watch(const std::vector<core::device_info>& devices,
                                           const library_lookup& libraries, std::string sysfs_root)
    : root_(std::move(sysfs_root)) {
  for (const auto& d : devices) {
    if (!core::is_gpu(d)) continue;
    auto w = std::make_unique<watched>();
    w->device = d;
    w->library = libraries(d.kind);
    const auto bus_id = d.properties.value("pci_bus_id", std::string());
    if (!w->library.library) {
      w->why_no_handle = w->library.unavailable_reason;
    } else if (bus_id.empty()) {
      w->why_no_handle = "the device has no PCI bus id";
    } else {
      w->handle = w->library.library->open_device(bus_id, w->why_no_handle);
    }
    if (w->handle) w->xids = w->handle->listen_for_xids(w->why_no_xids);
    devices_.push_back(std::move(w));
  }
}

hardware_error_watch::~hardware_error_watch() = default;

error_counter_reading hardware_error_watch::read() {
  const std::lock_guard lock(mutex_);
  error_counter_reading reading;
  for (const auto& w : devices_) {
    device_error_counters c;
    if (w->handle) {
      c = w->handle->error_counters();
      if (w->xids) {
        c.xids = w->xids->take();
      } else {
        c.not_read.push_back("xid events: " + w->why_no_xids);
      }
    } else {
      c.not_read.push_back("management library: " + w->why_no_handle);
    }
    if (w->device.kind == core::device_kind::hip && !has_ras(c)) {
      const auto bus_id = w->device.properties.value("pci_bus_id", std::string());
      if (!bus_id.empty()) read_amdgpu_ras(root_, bus_id, c);
      if (has_ras(c)) c.source = c.source.empty() ? "amdgpu sysfs" : c.source + " and amdgpu sysfs";
    }
    c.device = w->device.id;
    reading.devices.push_back(std::move(c));
  }
  if (auto edac = read_edac(root_)) reading.devices.push_back(std::move(*edac));
  return reading;
}

}  // namespace ironbench::telemetry
