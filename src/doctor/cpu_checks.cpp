#include "doctor/cpu_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/device_kinds.hpp"
#include "core/text.hpp"

namespace ironbench::doctor {
namespace {

// The kernel family to name in a fix for a CPU with `isa`.
const char* openblas_family_for(vector_isa isa) {
  switch (isa) {
    case vector_isa::avx512: return "SkylakeX";
    case vector_isa::avx2: return "Haswell";
    case vector_isa::avx: return "Sandybridge";
    case vector_isa::sse: return "Nehalem";
  }
  return "Haswell";
}

// The CPU's device id as runs name it (device::describe_cpu): its kind's name, "cpu". A finding
// about the CPU as a benchmark device names it, so that it does not affect GPU cases.
std::string cpu_device() { return std::string(core::facts_of(core::device_kind::cpu).name); }

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

}  // namespace

std::optional<vector_isa> openblas_core_isa(const std::string& core_name) {
  const auto name = ascii_lower(core_name);
  for (const char* n : {"skylakex", "cooperlake", "sapphirerapids"}) {
    if (name == n) return vector_isa::avx512;
  }
  for (const char* n : {"haswell", "zen", "excavator", "skylake"}) {
    if (name == n) return vector_isa::avx2;
  }
  for (const char* n : {"sandybridge", "bulldozer", "piledriver", "steamroller"}) {
    if (name == n) return vector_isa::avx;
  }
  for (const char* n : {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "opteron", "opteron_sse3",
                        "barcelona", "bobcat", "katmai", "coppermine", "northwood", "banias", "athlon", "nano"}) {
    if (name == n) return vector_isa::sse;
  }
  return std::nullopt;
}

std::vector<finding> check_blas_kernels(const doctor_facts& facts) {
  if (!facts.blas || facts.blas->core_name.empty()) return {};
  const auto kernels = openblas_core_isa(facts.blas->core_name);
  if (!kernels || static_cast<int>(*kernels) >= static_cast<int>(facts.cpu.isa)) return {};
  const int gap = static_cast<int>(facts.cpu.isa) - static_cast<int>(*kernels);
  std::string evidence =
      fmt::format("openblas_get_corename() = {} ({} kernels); the CPU ({}) has {}", facts.blas->core_name,
                  to_string(*kernels), facts.cpu.model, to_string(facts.cpu.isa));
  if (const auto forced = facts.environment.find("OPENBLAS_CORETYPE"); forced != facts.environment.end()) {
    evidence += fmt::format("; OPENBLAS_CORETYPE={} is set", forced->second);
  }
  if (!facts.blas->config.empty()) evidence += "; " + facts.blas->config;
  return {make_finding(
      gap >= 2 ? severity::critical : severity::warning,
      fmt::format("OpenBLAS runs its {} kernels on a CPU with {}: CPU GEMM will be a fraction of its peak",
                  facts.blas->core_name, to_string(facts.cpu.isa)),
      evidence, {"gemm"},
      fmt::format("export OPENBLAS_CORETYPE={} (the newest kernel family this CPU supports), or install an "
                  "OpenBLAS that knows this CPU",
                  openblas_family_for(facts.cpu.isa)),
      cpu_device())};
}

std::vector<finding> check_cpu_governor(const doctor_facts& facts) {
  std::vector<std::string> slow;
  for (const auto& g : facts.cpu.governors) {
    if (g != "performance") slow.push_back(g);
  }
  if (slow.empty()) return {};
  const bool powersave = std::find(slow.begin(), slow.end(), "powersave") != slow.end();
  return {make_finding(
      powersave ? severity::warning : severity::info,
      fmt::format("CPU frequency governor {}: clocks may ramp up late or stay low during short measurements",
                  fmt::join(slow, ", ")),
      fmt::format("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor: {}", fmt::join(facts.cpu.governors, ", ")),
      {"all"}, "cpupower frequency-set -g performance (or tuned-adm profile throughput-performance)")};
}

std::vector<finding> check_cpu_boost(const doctor_facts& facts) {
  if (!facts.cpu.boost || *facts.cpu.boost) return {};
  const bool intel = facts.cpu.boost_source.find("intel_pstate") != std::string::npos;
  return {make_finding(severity::warning, "CPU boost (turbo) is off: the cores stay at their base clock",
                       fmt::format("{} = {}", facts.cpu.boost_source, intel ? "1" : "0"),
                       {"gemm", "stream", "serve", "train"},
                       intel ? "echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo"
                             : "echo 1 > /sys/devices/system/cpu/cpufreq/boost")};
}

std::vector<finding> check_smt(const doctor_facts& facts) {
  if (!facts.cpu.smt_active || !*facts.cpu.smt_active) return {};
  return {make_finding(
      severity::info,
      "SMT is on: two hardware threads share each core's vector units, so a thread per logical CPU does "
      "not add FLOPs",
      fmt::format("/sys/devices/system/cpu/smt/active = 1 (control: {})", facts.cpu.smt_control.value_or("?")),
      {"gemm", "stream"}, "compare with one thread per physical core (OMP_NUM_THREADS), or SMT off in firmware",
      cpu_device())};
}

std::vector<finding> check_numa_balancing(const doctor_facts& facts) {
  if (!facts.cpu.numa_balancing || *facts.cpu.numa_balancing == 0 || facts.cpu.numa_nodes < 2) return {};
  return {make_finding(severity::warning,
                       "automatic NUMA balancing is on: the kernel unmaps and moves pages while a benchmark runs",
                       fmt::format("/proc/sys/kernel/numa_balancing = {}; {} NUMA nodes", *facts.cpu.numa_balancing,
                                   facts.cpu.numa_nodes),
                       {"stream", "gemm", "collectives", "serve", "train"}, "sysctl kernel.numa_balancing=0")};
}

std::vector<finding> check_hugepages(const doctor_facts& facts) {
  if (facts.cpu.transparent_hugepages != "never") return {};
  return {make_finding(severity::warning,
                       "transparent huge pages are off: large buffers use 4 KiB pages and miss the TLB more",
                       "/sys/kernel/mm/transparent_hugepage/enabled: [never]", {"stream", "gemm"},
                       "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled (or always)", cpu_device())};
}

std::vector<finding> check_cpu_allowance(const doctor_facts& facts) {
  std::vector<finding> out;
  const int online = facts.cpu.online_cpus;
  if (facts.cpu.cpuset_cpus && online > 0 && *facts.cpu.cpuset_cpus < online) {
    out.push_back(make_finding(
        severity::info,
        fmt::format("this process may run on {} of the machine's {} CPUs (cgroup cpuset): CPU results "
                    "are for those {}",
                    *facts.cpu.cpuset_cpus, online, *facts.cpu.cpuset_cpus),
        fmt::format("cpuset.cpus.effective: {} CPUs; {} online", *facts.cpu.cpuset_cpus, online), {"gemm", "stream"},
        "run without the cpuset (docker --cpuset-cpus, systemd AllowedCPUs) to measure the machine", cpu_device()));
  }
  const int allowed = facts.cpu.cpuset_cpus.value_or(online);
  if (facts.cpu.cpu_quota_cores && allowed > 0 && *facts.cpu.cpu_quota_cores < allowed - 0.01) {
    out.push_back(
        make_finding(severity::warning,
                     fmt::format("a CPU quota of {:.2f} CPUs on {} usable CPUs: threads beyond the quota are "
                                 "throttled in each period",
                                 *facts.cpu.cpu_quota_cores, allowed),
                     fmt::format("cgroup cpu.max quota / period = {:.2f} CPUs", *facts.cpu.cpu_quota_cores),
                     {"gemm", "stream", "serve", "train"},
                     "use as many threads as the quota allows, or lift the quota (docker --cpus, CPUQuota=)"));
  }
  return out;
}

std::vector<finding> check_memory(const doctor_facts& facts) {
  if (!facts.memory_needed_bytes) return {};
  std::optional<std::uint64_t> available = facts.cpu.memory_available_bytes;
  std::string source = "MemAvailable";
  if (facts.cpu.cgroup_memory_limit_bytes && (!available || *facts.cpu.cgroup_memory_limit_bytes < *available)) {
    available = facts.cpu.cgroup_memory_limit_bytes;
    source = "the cgroup memory limit";
  }
  if (!available) return {};
  const auto needed = *facts.memory_needed_bytes;
  if (needed <= *available * 8 / 10) return {};
  const bool over = needed > *available;
  return {
      make_finding(over ? severity::critical : severity::warning,
                   over ? fmt::format("the run needs {} but {} is {}", gib(needed), source, gib(*available))
                        : fmt::format("the run needs {}, over 80 % of {} ({})", gib(needed), source, gib(*available)),
                   fmt::format("largest case: {}; {}: {}", gib(needed), source, gib(*available)), {"all"},
                   "smaller sizes (--axis), or free memory first")};
}

std::vector<finding> check_steal(const doctor_facts& facts) {
  if (!facts.window || !facts.window->steal_share) return {};
  const double share = *facts.window->steal_share;
  if (share < 0.02) return {};
  if (facts.window->steal_ticks && *facts.window->steal_ticks < min_steal_ticks) return {};
  return {make_finding(
      share >= 0.10 ? severity::critical : severity::warning,
      fmt::format("the hypervisor took {:.1f} % of this VM's CPU time during the run (steal)", share * 100),
      fmt::format("/proc/stat steal over the run's {:.1f} s: {:.1f} % of all ticks", facts.window->duration_s,
                  share * 100),
      {"all"}, "dedicated (pinned) vCPUs, a less loaded host, or repeat the run and compare")};
}

std::vector<finding> check_cgroup_throttling(const doctor_facts& facts) {
  if (!facts.window || !facts.window->throttled_periods || *facts.window->throttled_periods <= 0) return {};
  const auto throttled = *facts.window->throttled_periods;
  const auto periods = facts.window->periods.value_or(0);
  const double share = periods > 0 ? static_cast<double>(throttled) / static_cast<double>(periods) : 0;
  return {make_finding(
      share >= 0.10 ? severity::critical : severity::warning,
      fmt::format("the cgroup's CPU quota throttled this process in {} scheduling periods during the run", throttled),
      fmt::format(
          "cpu.stat nr_throttled +{} of nr_periods +{}{}", throttled, periods,
          facts.window->throttled_s ? fmt::format(", throttled {:.2f} s", *facts.window->throttled_s) : std::string()),
      {"all"}, "fewer threads than the quota (cpu.max), or a larger quota")};
}

}  // namespace ironbench::doctor
