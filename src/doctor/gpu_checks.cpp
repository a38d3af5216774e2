#include "doctor/gpu_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ironbench::doctor {
namespace {

// A finding about one GPU.
finding make(severity level, const std::string& device, std::string summary, std::string evidence,
             std::vector<std::string> affects, std::string fix) {
  return make_finding(level, std::move(summary), std::move(evidence), std::move(affects), std::move(fix), device);
}

std::optional<double> number_at(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::optional<std::string> text_at(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return std::nullopt;
  return j[key].get<std::string>();
}

bool flag_at(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

const gpu_facts* gpu_named(const doctor_facts& facts, const std::string& id) {
  for (const auto& g : facts.gpus) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

// Clock event reasons that say the GPU was held back, not merely idle or at a set clock.
bool limiting(const std::string& reason) {
  return reason != "gpu_idle" && reason != "applications_clocks_setting" && reason != "display_clock_setting";
}

bool hardware_slowdown(const std::string& reason) { return reason.rfind("hw_", 0) == 0; }

// Clock event reasons that say the GPU drew as much power as its limit allows: a GPU under
// dense work is meant to sit there. NVML calls it sw_power_cap; AMD's libraries report no
// clock reasons to the telemetry (hw_power_brake_slowdown is an external brake signal: hardware).
bool power_capping(const std::string& reason) { return reason == "sw_power_cap"; }

// A GPU's power limit and the default it ships with, where the management library gave both.
struct power_limits {
  double limit_w = 0;
  double default_w = 0;
  /// Below the default by more than the 2 % that firmware rounding and board variants explain.
  [[nodiscard]] bool lowered() const { return limit_w < default_w * 0.98; }
};

std::optional<power_limits> power_limits_of(const gpu_facts& g) {
  const auto limit = number_at(g.management, "power_limit_w");
  const auto standard = number_at(g.management, "default_power_limit_w");
  if (!limit || !standard) return std::nullopt;
  return power_limits{*limit, *standard};
}

// What to do about clocks held back by `reasons` on a GPU with `limits`.
std::string clock_fix(const std::set<std::string>& reasons, const std::optional<power_limits>& limits) {
  if (std::any_of(reasons.begin(), reasons.end(), hardware_slowdown)) {
    return "check cooling, power delivery and the GPU's health (nvidia-smi -q -d PERFORMANCE, dcgmi diag, amd-smi "
           "metric); a hardware slowdown is not a setting";
  }
  const bool capped = std::any_of(reasons.begin(), reasons.end(), power_capping);
  if (capped && limits && limits->lowered()) {
    return fmt::format(
        "raise the power limit to its default {:.0f} W (it is {:.0f} W), improve cooling, or compare "
        "at equal clocks",
        limits->default_w, limits->limit_w);
  }
  return "improve cooling, check the power limit against its default (nvidia-smi -q -d POWER), or compare at equal "
         "clocks";
}

// The cause to name beside the reasons: the lowered power limit where the GPU was power capped.
std::string clock_cause(const std::set<std::string>& reasons, const std::optional<power_limits>& limits) {
  const bool capped = std::any_of(reasons.begin(), reasons.end(), power_capping);
  if (!capped || !limits || !limits->lowered()) return "";
  return fmt::format(" at a power limit of {:.0f} W, below its default {:.0f} W", limits->limit_w, limits->default_w);
}

}  // namespace

std::vector<finding> check_gpu_clocks(const doctor_facts& facts) {
  struct worst {
    double ratio = 1;
    double mean = 0;
    double max = 0;
    std::set<std::string> reasons;
    int cases = 0;
  };
  std::map<std::pair<std::string, std::string>, worst> by_device;  // (device, benchmark)
  for (const auto& c : facts.cases) {
    const auto device = c.value("device", "");
    const auto* gpu = gpu_named(facts, device);
    if (gpu == nullptr || !c.contains("telemetry") || !c["telemetry"].is_object()) continue;
    const auto& t = c["telemetry"];
    const auto max = number_at(gpu->management, "sm_clock_max_mhz");
    const auto mean = t.contains("sm_clock_mhz") ? number_at(t["sm_clock_mhz"], "mean") : std::nullopt;
    if (!max || !mean || *max <= 0) continue;
    std::vector<std::string> reasons;
    if (t.contains("throttle_reasons") && t["throttle_reasons"].is_array()) {
      for (const auto& r : t["throttle_reasons"]) {
        if (r.is_string() && limiting(r.get<std::string>())) reasons.push_back(r.get<std::string>());
      }
    }
    const double ratio = *mean / *max;
    if (ratio >= 0.9 || reasons.empty()) continue;
    auto& w = by_device[{device, c.value("benchmark", "")}];
    ++w.cases;
    w.reasons.insert(reasons.begin(), reasons.end());
    if (ratio < w.ratio) {
      w.ratio = ratio;
      w.mean = *mean;
      w.max = *max;
    }
  }
  std::vector<finding> out;
  for (const auto& [key, w] : by_device) {
    const auto limits = power_limits_of(*gpu_named(facts, key.first));
    // Power capping at the default limit is how a GPU runs dense work, not a fault (DCGM's
    // diagnostics treat it so): only a lowered limit, heat or hardware make it a finding.
    const bool capped_only = std::all_of(w.reasons.begin(), w.reasons.end(), power_capping);
    if (capped_only && limits && !limits->lowered()) continue;
    const bool hardware = std::any_of(w.reasons.begin(), w.reasons.end(), hardware_slowdown);
    std::string evidence = fmt::format("mean SM clock {:.0f} MHz of {:.0f} MHz maximum; clock event reasons {}", w.mean,
                                       w.max, fmt::join(w.reasons, ", "));
    if (limits) evidence += fmt::format("; power limit {:.0f} W, default {:.0f} W", limits->limit_w, limits->default_w);
    out.push_back(make(hardware ? severity::critical : severity::warning, key.first,
                       fmt::format("{} ran at {:.0f} % of its maximum SM clock during {} case(s) of {}, held back by "
                                   "{}{}",
                                   key.first, w.ratio * 100, w.cases, key.second, fmt::join(w.reasons, ", "),
                                   clock_cause(w.reasons, limits)),
                       std::move(evidence), {key.second}, clock_fix(w.reasons, limits)));
  }
  return out;
}

std::vector<finding> check_power_limit(const doctor_facts& facts) {
  std::vector<finding> out;
  for (const auto& g : facts.gpus) {
    const auto limits = power_limits_of(g);
    if (!limits || !limits->lowered()) continue;
    const double limit = limits->limit_w;
    const double standard = limits->default_w;
    // A tenth of the power or more withheld costs dense GEMM a tenth of its rate or more: the
    // node is not what it is sold as, and validate fails the GPU's checks until it is reset.
    const bool far_below = limit < standard * 0.9;
    out.push_back(make(far_below ? severity::critical : severity::warning, g.id,
                       fmt::format("{}'s power limit is {:.0f} W, below its default {:.0f} W", g.id, limit, standard),
                       fmt::format("power limit {:.0f} W; default {:.0f} W", limit, standard),
                       {"gemm", "stream", "collectives", "tp_infer", "serve", "train"},
                       g.vendor == "amd" ? "amd-smi set --power-cap (or rocm-smi --resetpoweroverdrive)"
                                         : "nvidia-smi -pl DEFAULT_WATTS (nvidia-smi -q -d POWER shows it)"));
  }
  return out;
}

std::vector<finding> check_memory_errors(const doctor_facts& facts) {
  std::vector<finding> out;
  for (const auto& g : facts.gpus) {
    const auto& m = g.management;
    if (const auto ue = number_at(m, "ecc_uncorrected_volatile"); ue && *ue > 0) {
      out.push_back(make(severity::critical, g.id,
                         fmt::format("{} has {:.0f} uncorrected ECC error(s) since the driver loaded", g.id, *ue),
                         fmt::format("volatile uncorrected ECC errors: {:.0f}", *ue), {"all"},
                         "drain the GPU and run the vendor diagnostics (dcgmi diag -r 3, rvs); reset it"));
    }
    if (flag_at(m, "remapping_failed")) {
      out.push_back(make(severity::critical, g.id, fmt::format("{} failed to remap a memory row", g.id),
                         "row remapping failure reported", {"all"}, "the GPU needs service (an RMA case)"));
    }
    if (flag_at(m, "remapped_rows_pending") || flag_at(m, "retired_pages_pending")) {
      out.push_back(make(severity::warning, g.id,
                         fmt::format("{} has memory rows or pages waiting to be retired: they take effect at the next "
                                     "GPU reset",
                                     g.id),
                         flag_at(m, "remapped_rows_pending") ? "remapped rows pending" : "retired pages pending",
                         {"all"}, "reset the GPU (nvidia-smi -r) or reboot when it is idle"));
    }
  }
  return out;
}

std::vector<finding> check_pcie_link(const doctor_facts& facts) {
  std::vector<finding> out;
  for (const auto& g : facts.gpus) {
    if (g.link_width && g.max_link_width && *g.link_width < *g.max_link_width) {
      out.push_back(make(severity::critical, g.id,
                         fmt::format("{}'s PCIe link runs x{} of its x{}: host transfers get a fraction of their "
                                     "bandwidth",
                                     g.id, *g.link_width, *g.max_link_width),
                         fmt::format("/sys/bus/pci/devices/{}/current_link_width = {}, max_link_width = {}",
                                     g.pci_bus_id, *g.link_width, *g.max_link_width),
                         {"collectives", "tp_infer", "serve", "train"},
                         "reseat the card or the riser, check the slot's wiring and the BIOS's bifurcation"));
    }
    if (g.link_speed_gts && g.max_link_speed_gts && *g.link_speed_gts < *g.max_link_speed_gts) {
      // GPUs lower their link speed when idle to save power: a speed below the maximum is only a
      // problem under load.
      out.push_back(
          make(severity::info, g.id,
               fmt::format("{}'s PCIe link is at {:g} GT/s of its {:g} GT/s (GPUs lower it when idle; a "
                           "problem only if it stays there under load)",
                           g.id, *g.link_speed_gts, *g.max_link_speed_gts),
               fmt::format("/sys/bus/pci/devices/{}/current_link_speed = {:g} GT/s, max_link_speed = {:g} GT/s",
                           g.pci_bus_id, *g.link_speed_gts, *g.max_link_speed_gts),
               {"collectives", "tp_infer"},
               "read it again during a run (nvidia-smi -q -d PCIE); if it stays low, check the slot and the BIOS's "
               "PCIe generation"));
    }
  }
  return out;
}

std::vector<finding> check_persistence(const doctor_facts& facts) {
  std::vector<finding> out;
  for (const auto& g : facts.gpus) {
    if (text_at(g.management, "persistence_mode") != "disabled") continue;
    out.push_back(make(severity::info, g.id,
                       fmt::format("{} is not in persistence mode: the driver tears down its state when no process "
                                   "uses it, so the first call of each run pays for setting it up again",
                                   g.id),
                       "persistence mode: disabled", {"gemm", "stream", "collectives"},
                       "nvidia-smi -pm 1 (or the nvidia-persistenced service)"));
  }
  return out;
}

std::vector<finding> check_partitions(const doctor_facts& facts) {
  std::vector<finding> out;
  for (const auto& g : facts.gpus) {
    if (text_at(g.management, "mig_mode") == "enabled") {
      out.push_back(make(severity::info, g.id,
                         fmt::format("{} is in MIG mode: results are for one slice, not the whole GPU", g.id),
                         "MIG mode: enabled", {"all"},
                         "compare with expectations scaled to the slice, or MIG off (nvidia-smi -mig 0)"));
    }
    const auto compute = text_at(g.management, "compute_partition");
    const auto memory = text_at(g.management, "memory_partition");
    if ((compute && *compute != "SPX") || (memory && *memory != "NPS1")) {
      out.push_back(
          make(severity::info, g.id,
               fmt::format("{} is partitioned ({} compute, {} memory): results are for one partition", g.id,
                           compute.value_or("?"), memory.value_or("?")),
               fmt::format("current_compute_partition = {}, current_memory_partition = {}", compute.value_or("?"),
                           memory.value_or("?")),
               {"all"},
               "compare with expectations scaled to the partition, or SPX/NPS1 (amd-smi set --compute-partition SPX)"));
    }
  }
  return out;
}

std::vector<finding> check_gpu_nic_numa(const doctor_facts& facts) {
  std::set<int> nic_nodes;
  std::vector<std::string> nics;
  for (const auto& n : facts.nics) {
    if (!n.rdma || !n.numa_node || *n.numa_node < 0) continue;
    nic_nodes.insert(*n.numa_node);
    nics.push_back(fmt::format("{} (node {})", n.name, *n.numa_node));
  }
  if (nic_nodes.empty()) return {};
  std::vector<finding> out;
  for (const auto& g : facts.gpus) {
    if (!g.numa_node || *g.numa_node < 0 || nic_nodes.contains(*g.numa_node)) continue;
    out.push_back(
        make(severity::warning, g.id,
             fmt::format("{} is on NUMA node {} and no RDMA NIC is: GPUDirect RDMA traffic crosses the "
                         "inter-socket link",
                         g.id, *g.numa_node),
             fmt::format("{} numa_node = {}; RDMA NICs: {}", g.pci_bus_id, *g.numa_node, fmt::join(nics, ", ")),
             {"collectives"}, "use the NIC on the GPU's node (NCCL_IB_HCA), or move the card"));
  }
  return out;
}

std::vector<finding> check_iommu(const doctor_facts& facts) {
  if (facts.gpus.empty() || facts.iommu != "translated") return {};
  return {make(severity::warning, "",
               "the IOMMU translates DMA addresses: GPU peer-to-peer and RDMA transfers are slower or disabled",
               facts.iommu_evidence, {"collectives", "tp_infer"},
               "iommu=pt on the kernel command line (passthrough), as AMD and NVIDIA recommend for GPU nodes")};
}

}  // namespace ironbench::doctor
