#include "doctor/hardware_error_checks.hpp"

#include <fmt/format.h>

#include <map>

#include "core/text.hpp"

namespace ironbench::doctor {
namespace {

using telemetry::error_class;

struct device_changes {
  std::vector<std::string> evidence;
  bool critical = false;
  std::vector<std::string> what;  ///< "uncorrected ECC", "PCIe replays", ...
};

std::string kind_of(const telemetry::counter_change& c) {
  switch (c.cls) {
    case error_class::corrected: return "corrected errors";
    case error_class::uncorrected:
      return c.counter == "remapping_failed" ? "a row remapping failure" : "uncorrected errors";
    case error_class::pending: return "memory waiting to be retired";
    case error_class::link_replay: return "PCIe replays";
  }
  return "errors";
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  for (const auto& i : list) {
    if (i == item) return;
  }
  list.push_back(item);
}

}  // namespace

std::vector<finding> hardware_error_findings(const telemetry::error_delta& delta, const std::string& window) {
  std::map<std::string, device_changes> per_device;
  for (const auto& c : delta.rises) {
    auto& d = per_device[c.device];
    d.evidence.push_back(fmt::format("{} {} -> {}", c.counter, c.before, c.after));
    d.critical = d.critical || c.cls == error_class::uncorrected;
    add_unique(d.what, kind_of(c));
  }
  for (const auto& [device, codes] : delta.xids) {
    auto& d = per_device[device];
    std::vector<std::string> texts;
    bool hardware = false;
    for (const auto code : codes) {
      texts.push_back(std::to_string(code));
      hardware = hardware || telemetry::hardware_xid(code);
    }
    d.evidence.push_back("XID " + join(texts, ", "));
    d.critical = d.critical || hardware;
    add_unique(d.what, hardware ? "hardware XID events" : "XID events");
  }
  std::vector<finding> out;
  for (const auto& [device, d] : per_device) {
    const auto summary = fmt::format("{}: {} {}", device, join(d.what, ", "), window);
    const auto fix = d.critical
                         ? "drain the node; read nvidia-smi -q -d ECC,ROW_REMAPPER (or amd-smi metric --ecc) and "
                           "the kernel log, run the vendor diagnostics (dcgmi diag -r 3, rvs) and reset the GPU; "
                           "a count that rises again needs service (an RMA case)"
                         : "watch the counts: run `ironbench validate --level burn-in` and compare; corrected "
                           "errors or replays that keep rising precede uncorrected ones";
    out.push_back(make_finding(d.critical ? severity::critical : severity::warning, summary, join(d.evidence, "; "),
                               {"all"}, fix, device));
  }
  return out;
}

std::vector<finding> check_hardware_errors(const doctor_facts& facts) {
  if (!facts.hardware_errors) return {};
  return hardware_error_findings(telemetry::delta_from_json(*facts.hardware_errors));
}

}  // namespace ironbench::doctor
