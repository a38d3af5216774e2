#include "telemetry/hardware_error_counters.hpp"

#include <algorithm>
#include <sstream>

namespace ironbench::telemetry {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

const device_error_counters* find_device(const error_counter_reading& r, const std::string& device) {
  for (const auto& d : r.devices) {
    if (d.device == device) return &d;
  }
  return nullptr;
}

json change_json(const counter_change& c) {
  return {{"device", c.device},
          {"counter", c.counter},
          {"class", to_string(c.cls)},
          {"before", c.before},
          {"after", c.after}};
}

counter_change change_from_json(const json& j) {
  counter_change c;
  c.device = j.value("device", std::string());
  c.counter = j.value("counter", std::string());
  c.cls = class_of(c.counter);
  c.before = j.value("before", std::uint64_t{0});
  c.after = j.value("after", std::uint64_t{0});
  return c;
}

}  // namespace

const char* to_string(error_class c) {
  switch (c) {
    case error_class::corrected: return "corrected";
    case error_class::uncorrected: return "uncorrected";
    case error_class::pending: return "pending";
    case error_class::link_replay: return "link_replay";
  }
  return "uncorrected";
}

error_class class_of(const std::string& counter) {
  if (counter == "ecc_corrected_volatile" || counter == "remapped_rows_correctable" || ends_with(counter, "_ce")) {
    return error_class::corrected;
  }
  if (counter == "remapped_rows_pending" || counter == "retired_pages_pending") return error_class::pending;
  if (counter == "pcie_replays") return error_class::link_replay;
  return error_class::uncorrected;
}

error_delta delta_between(const error_counter_reading& before, const error_counter_reading& after) {
  error_delta delta;
  for (const auto& a : after.devices) {
    if (!a.xids.empty()) delta.xids[a.device] = a.xids;
    const auto* b = find_device(before, a.device);
    if (b == nullptr) continue;
    for (const auto& [name, value] : a.counters) {
      const auto it = b->counters.find(name);
      if (it == b->counters.end() || it->second == value) continue;
      counter_change c{a.device, name, class_of(name), it->second, value};
      (c.rose() ? delta.rises : delta.resets).push_back(std::move(c));
    }
  }
  return delta;
}

bool hardware_xid(unsigned code) {
  // NVIDIA's XID catalogue: 48 double-bit ECC, 61/62 internal micro-controller errors, 63/64
  // row remapping (or page retirement) events and failures, 74 NVLink, 79 fallen off the bus,
  // 92 high single-bit ECC rate, 94/95 contained and uncontained ECC errors, 119/120 GSP, 140
  // unrecovered ECC, 154 a GPU that needs a reset or a reboot.
  static constexpr unsigned codes[] = {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140, 154};
  return std::find(std::begin(codes), std::end(codes), code) != std::end(codes);
}

json to_json(const error_counter_reading& reading) {
  json devices = json::array();
  for (const auto& d : reading.devices) {
    json one = {{"device", d.device}, {"source", d.source}, {"counters", d.counters}};
    if (!d.xids.empty()) one["xids"] = d.xids;
    if (!d.not_read.empty()) one["not_read"] = d.not_read;
    devices.push_back(std::move(one));
  }
  return {{"devices", devices}};
}

json to_json(const error_delta& delta) {
  json rises = json::array();
  json resets = json::array();
  for (const auto& c : delta.rises) rises.push_back(change_json(c));
  for (const auto& c : delta.resets) resets.push_back(change_json(c));
  json xids = json::object();
  for (const auto& [device, codes] : delta.xids) xids[device] = codes;
  return {{"rises", rises}, {"resets", resets}, {"xids", xids}};
}

error_delta delta_from_json(const json& j) {
  error_delta delta;
  if (!j.is_object()) return delta;
  if (j.contains("rises") && j["rises"].is_array()) {
    for (const auto& c : j["rises"]) delta.rises.push_back(change_from_json(c));
  }
  if (j.contains("resets") && j["resets"].is_array()) {
    for (const auto& c : j["resets"]) delta.resets.push_back(change_from_json(c));
  }
  if (j.contains("xids") && j["xids"].is_object()) {
    for (const auto& [device, codes] : j["xids"].items()) {
      if (codes.is_array()) delta.xids[device] = codes.get<std::vector<unsigned>>();
    }
  }
  return delta;
}

bool parse_amdgpu_ras_count(const std::string& block, const std::string& text,
                            std::map<std::string, std::uint64_t>& counters) {
  std::istringstream in(text);
  std::string key;
  std::uint64_t count = 0;
  bool any = false;
  while (in >> key >> count) {
    if (key == "ue:" || key == "ce:") {
      counters["ras_" + block + (key == "ue:" ? "_ue" : "_ce")] = count;
      any = true;
    }
  }
  return any;
}

}  // namespace ironbench::telemetry
