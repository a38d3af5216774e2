// Everything the checks of `ironbench doctor` judge, read once (doctor/gather_facts.hpp) from
// /proc, /sys, the environment, the loaded BLAS and the GPU management libraries, so that each
// check is a pure function of these facts and tests can give it any machine.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::doctor {

/// The CPU's widest vector instruction set, in the order BLAS kernel families use them.
enum class vector_isa { sse, avx, avx2, avx512 };

[[nodiscard]] const char* to_string(vector_isa isa);

struct cpu_facts {
  std::string model;
  vector_isa isa = vector_isa::sse;
  int online_cpus = 0;
  int numa_nodes = 1;
  std::vector<std::string> governors;          ///< distinct cpufreq scaling governors of the online CPUs
  std::optional<bool> boost;                   ///< cpufreq/boost, or the inverse of intel_pstate/no_turbo
  std::string boost_source;                    ///< the file it came from
  std::optional<std::string> smt_control;      ///< devices/system/cpu/smt/control: on, off, forceoff, notsupported
  std::optional<bool> smt_active;              ///< devices/system/cpu/smt/active
  std::optional<std::int64_t> numa_balancing;  ///< proc/sys/kernel/numa_balancing
  std::optional<std::string> transparent_hugepages;  ///< the selected mode: always, madvise, never
  std::optional<int> cpuset_cpus;                    ///< CPUs the process's cgroup allows
  std::optional<double> cpu_quota_cores;             ///< its CPU-time quota in CPUs
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<std::uint64_t> memory_available_bytes;
  std::optional<std::uint64_t> cgroup_memory_limit_bytes;
};

struct blas_facts {
  std::string library;    ///< "openblas"
  std::string core_name;  ///< openblas_get_corename(): the kernel family chosen for this CPU
  std::string config;     ///< openblas_get_config()
};

/// What changed on the host while a run measured: hypervisor steal and cgroup CPU throttling.
struct run_window_facts {
  double duration_s = 0;
  std::optional<double> steal_share;              ///< steal ticks / all ticks of the window (proc/stat)
  std::optional<std::int64_t> throttled_periods;  ///< growth of cpu.stat nr_throttled
  std::optional<std::int64_t> periods;            ///< growth of cpu.stat nr_periods
  std::optional<double> throttled_s;              ///< growth of throttled_usec (v2) / throttled_time (v1)
  std::optional<double> steal_ticks;              ///< steal ticks of the window, all CPUs (USER_HZ, 100 a second)
};

/// The steal a finding needs besides its share: 10 ticks (0.1 s of one CPU). A run shorter than
/// a second on two vCPUs has 40 ticks or so, where one stolen tick is 2.5 %: a share that a
/// tick's rounding decides is no finding.
inline constexpr double min_steal_ticks = 10;

struct gpu_facts {
  std::string id;      ///< "cuda:0"
  std::string vendor;  ///< "nvidia", "amd"
  std::string pci_bus_id;
  std::optional<double> link_speed_gts;  ///< PCIe current_link_speed (GT/s)
  std::optional<double> max_link_speed_gts;
  std::optional<int> link_width;
  std::optional<int> max_link_width;
  std::optional<int> numa_node;  ///< the PCI device's NUMA node (-1: none reported)
  /// From the management library (telemetry static_info plus the health queries):
  /// power_limit_w, default_power_limit_w, persistence_mode, ecc_uncorrected_volatile,
  /// retired_pages_pending, remapped_rows_pending, remapping_failed, mig_mode,
  /// compute_partition, memory_partition.
  json management = json::object();
};

struct nic_facts {
  std::string name;  ///< "mlx5_0", "eth0"
  std::optional<int> numa_node;
  bool rdma = false;  ///< an InfiniBand / RoCE device
};

struct doctor_facts {
  cpu_facts cpu;
  std::optional<blas_facts> blas;
  std::optional<run_window_facts> window;
  std::vector<gpu_facts> gpus;
  std::vector<nic_facts> nics;
  std::optional<std::string> iommu;  ///< "translated", "passthrough" or "off"
  std::string iommu_evidence;
  std::map<std::string, std::string> environment;    ///< NCCL_*, RCCL_*, HSA_*, CUDA_*, OMP_*, OPENBLAS_*
  std::vector<int> ranks_per_node;                   ///< under MPI: ranks on each node
  std::optional<std::uint64_t> memory_needed_bytes;  ///< what the run's largest case needs
  /// The run's cases with their telemetry ([{"benchmark", "device", "telemetry": {...}}]) for
  /// the checks of clocks during a case; empty outside a run.
  json cases = json::array();
  /// The hardware error counters that changed over the run (telemetry::to_json(error_delta));
  /// empty outside a run.
  std::optional<json> hardware_errors;
};

}  // namespace ironbench::doctor
