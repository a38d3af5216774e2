#include "doctor/examine.hpp"

#include <chrono>
#include <map>
#include <thread>

#include "doctor/checks.hpp"
#include "doctor/live_facts.hpp"

namespace ironbench::doctor {
namespace {

template <class T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// The findings on `facts` with the telemetry of `run`'s cases, as run JSON.
json findings_of_run(doctor_facts facts, const core::run_result& run) {
  for (const auto& c : run.cases) {
    facts.cases.push_back({{"benchmark", c.benchmark}, {"device", c.device}, {"telemetry", c.telemetry}});
  }
  json out = json::array();
  for (const auto& f : diagnose(facts)) out.push_back(to_json(f));
  return out;
}

}  // namespace

examination examine_this_machine(const std::vector<core::device_info>& devices, double window_s) {
  examination e;
  const auto before = live_host_counters();
  e.facts = live_facts(devices);
  if (window_s > 0) {
    const auto elapsed = std::chrono::duration<double>(live_host_counters().time_s - before.time_s);
    const auto left = std::chrono::duration<double>(window_s) - elapsed;
    if (left.count() > 0) std::this_thread::sleep_for(left);
    e.facts.window = window_between(before, live_host_counters());
  }
  e.findings = diagnose(e.facts);
  return e;
}

json run_findings(const core::run_result& run, const host_counters& before,
                  std::optional<std::uint64_t> memory_needed) {
  auto facts = live_facts(run.devices);
  facts.window = window_between(before, live_host_counters());
  facts.memory_needed_bytes = memory_needed;
  return findings_of_run(std::move(facts), run);
}

json rank0_run_findings(const core::run_result& run) {
  auto facts = live_facts(run.devices);
  std::map<std::string, int> per_node;
  if (run.host.contains("ranks") && run.host["ranks"].is_array()) {
    for (const auto& r : run.host["ranks"]) ++per_node[r.value("hostname", std::string())];
  }
  for (const auto& [node, ranks] : per_node) facts.ranks_per_node.push_back(ranks);
  return findings_of_run(std::move(facts), run);
}

json to_json(const doctor_facts& f) {
  json cpu = {{"model", f.cpu.model},
              {"vector_isa", to_string(f.cpu.isa)},
              {"online_cpus", f.cpu.online_cpus},
              {"numa_nodes", f.cpu.numa_nodes},
              {"governors", f.cpu.governors},
              {"boost", optional_json(f.cpu.boost)},
              {"smt_active", optional_json(f.cpu.smt_active)},
              {"numa_balancing", optional_json(f.cpu.numa_balancing)},
              {"transparent_hugepages", optional_json(f.cpu.transparent_hugepages)},
              {"cpuset_cpus", optional_json(f.cpu.cpuset_cpus)},
              {"cpu_quota_cores", optional_json(f.cpu.cpu_quota_cores)},
              {"memory_available_bytes", optional_json(f.cpu.memory_available_bytes)}};
  json out = {{"cpu", cpu}, {"iommu", optional_json(f.iommu)}, {"environment", f.environment}};
  if (f.blas) out["blas"] = {{"library", f.blas->library}, {"core_name", f.blas->core_name}};
  if (f.window) {
    out["window"] = {{"duration_s", f.window->duration_s},
                     {"steal_share", optional_json(f.window->steal_share)},
                     {"throttled_periods", optional_json(f.window->throttled_periods)}};
  }
  json gpus = json::array();
  for (const auto& g : f.gpus) {
    gpus.push_back({{"id", g.id},
                    {"pci_bus_id", g.pci_bus_id},
                    {"link_speed_gts", optional_json(g.link_speed_gts)},
                    {"max_link_speed_gts", optional_json(g.max_link_speed_gts)},
                    {"link_width", optional_json(g.link_width)},
                    {"max_link_width", optional_json(g.max_link_width)},
                    {"numa_node", optional_json(g.numa_node)},
                    {"management", g.management}});
  }
  out["gpus"] = gpus;
  json nics = json::array();
  for (const auto& n : f.nics)
    nics.push_back({{"name", n.name}, {"numa_node", optional_json(n.numa_node)}, {"rdma", n.rdma}});
  out["nics"] = nics;
  return out;
}

json to_json(const examination& e) {
  json findings = json::array();
  for (const auto& f : e.findings) findings.push_back(to_json(f));
  return {{"checks", doctor_checks().size()}, {"findings", findings}, {"facts", to_json(e.facts)}};
}

}  // namespace ironbench::doctor
