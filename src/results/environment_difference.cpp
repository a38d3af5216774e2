#include "results/environment_difference.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ironbench::results {
namespace {

// The value at `path` in `document` as text: "" when absent or null.
std::string text_at(const json& document, const std::vector<const char*>& path) {
  const json* at = &document;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return "";
    at = &at->at(key);
  }
  if (at->is_null()) return "";
  if (at->is_string()) return at->get<std::string>();
  if (at->is_boolean()) return at->get<bool>() ? "yes" : "no";
  if (at->is_number_float()) return fmt::format("{:g}", at->get<double>());
  return at->dump();
}

std::string gibibytes(const std::string& bytes) {
  if (bytes.empty()) return "";
  try {
    return fmt::format("{:.1f} GiB", std::stod(bytes) / (1024.0 * 1024 * 1024));
  } catch (const std::exception&) {
    return bytes;
  }
}

// One row of the table: a fact's name and how to read it from a run's host fingerprint.
struct host_fact {
  const char* name;
  std::vector<const char*> path;
  bool bytes = false;
};

// The facts, in the order they print; adding one is one row.
const std::vector<host_fact>& host_facts() {
  static const std::vector<host_fact> facts = {
      {"environment", {"environment_kind"}},
      {"kernel", {"os", "kernel_release"}},
      {"os", {"os", "pretty_name"}},
      {"hypervisor", {"virtualization", "hypervisor"}},
      {"container", {"container", "engine"}},
      {"orchestrator", {"container", "orchestrator"}},
      {"cgroup version", {"cgroup", "version"}},
      {"cgroup cpu quota (cores)", {"cgroup", "cpu_quota_cores"}},
      {"cgroup cpuset (cpus)", {"cgroup", "cpuset_cpus"}},
      {"cgroup memory limit", {"cgroup", "memory_limit_bytes"}, true},
      {"cpu", {"cpu", "model_name"}},
      {"logical cpus", {"cpu", "logical_cpus"}},
      {"numa nodes", {"cpu", "numa_nodes"}},
      {"memory", {"memory", "total_bytes"}, true},
      {"glibc", {"software", "glibc"}},
      {"compiler", {"software", "compiler"}},
  };
  return facts;
}

// Facts of the first GPU a run measured: model, driver and runtime, partition modes.
void gpu_facts(const core::run_result& run, std::vector<std::pair<std::string, std::string>>& out) {
  const auto gpu =
      std::find_if(run.devices.begin(), run.devices.end(), [](const core::device_info& d) { return core::is_gpu(d); });
  if (gpu == run.devices.end()) return;
  const auto& p = gpu->properties;
  out.emplace_back("gpu", gpu->name);
  out.emplace_back("gpu count", std::to_string(std::count_if(run.devices.begin(), run.devices.end(),
                                                             [](const auto& d) { return core::is_gpu(d); })));
  out.emplace_back("gpu driver API", text_at(p, {"driver_api_version"}));
  out.emplace_back("gpu runtime", text_at(p, {"runtime_version"}));
  out.emplace_back("gpu driver", text_at(p, {"telemetry", "driver_version"}));
  for (const char* key :
       {"mig_mode", "compute_partition", "memory_partition", "virtualization_mode", "power_limit_w"}) {
    out.emplace_back(fmt::format("gpu {}", key), text_at(p, {"telemetry", key}));
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> environment_facts(const core::run_result& run) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : host_facts()) {
    auto value = text_at(run.host, f.path);
    out.emplace_back(f.name, f.bytes ? gibibytes(value) : value);
  }
  gpu_facts(run, out);
  if (run.host.is_object() && run.host.contains("software") && run.host.at("software").contains("libraries")) {
    for (const auto& [name, version] : run.host.at("software").at("libraries").items()) {
      out.emplace_back("library " + name, version.is_string() ? version.get<std::string>() : core::json_text(version));
    }
  }
  return out;
}

std::vector<environment_fact> environment_difference(const std::vector<comparison_side>& sides) {
  std::vector<environment_fact> facts;
  for (std::size_t s = 0; s < sides.size(); ++s) {
    if (sides[s].runs.empty()) continue;
    for (const auto& [name, value] : environment_facts(sides[s].runs.front())) {
      auto it = std::find_if(facts.begin(), facts.end(), [&](const auto& f) { return f.name == name; });
      if (it == facts.end()) {
        facts.push_back({name, std::vector<std::string>(sides.size())});
        it = facts.end() - 1;
      }
      it->values[s] = value;
    }
  }
  std::erase_if(facts, [](const environment_fact& f) {
    const bool stated = std::any_of(f.values.begin(), f.values.end(), [](const auto& v) { return !v.empty(); });
    return !stated || std::all_of(f.values.begin(), f.values.end(), [&](const auto& v) { return v == f.values[0]; });
  });
  return facts;
}

}  // namespace ironbench::results
