#include "doctor/checks.hpp"

#include <algorithm>

#include "doctor/collective_checks.hpp"
#include "doctor/cpu_checks.hpp"
#include "doctor/gpu_checks.hpp"
#include "doctor/hardware_error_checks.hpp"

namespace ironbench::doctor {

const std::vector<doctor_check>& doctor_checks() {
  static const std::vector<doctor_check> table{
      {"blas_kernels", "the BLAS library's kernel family against the CPU's vector instructions", check_blas_kernels},
      {"cpu_governor", "the cpufreq scaling governor of the online CPUs", check_cpu_governor},
      {"cpu_boost", "CPU boost (turbo) enabled", check_cpu_boost},
      {"smt", "simultaneous multithreading: benchmark threads may share cores", check_smt},
      {"numa_balancing", "automatic NUMA balancing moving pages during a measurement", check_numa_balancing},
      {"transparent_hugepages", "transparent huge pages for large buffers", check_hugepages},
      {"cpu_allowance", "a cpuset or CPU quota smaller than the machine", check_cpu_allowance},
      {"memory", "memory available against what the run needs", check_memory},
      {"steal", "hypervisor steal time during the run", check_steal},
      {"cgroup_throttling", "cgroup CPU quota throttling during the run", check_cgroup_throttling},
      {"gpu_clocks", "GPU clocks below the maximum during a case, and the reasons the GPU gave", check_gpu_clocks},
      {"power_limit", "GPU power limit below its default", check_power_limit},
      {"memory_errors", "GPU ECC errors, retired pages and remapped rows", check_memory_errors},
      {"hardware_errors",
       "GPU error counters that rose during the run (ECC, remapped rows, XID events, PCIe replays, amdgpu RAS)",
       check_hardware_errors},
      {"pcie_link", "GPU PCIe link speed and width against the device's maximum", check_pcie_link},
      {"persistence", "GPU persistence mode", check_persistence},
      {"partitions", "MIG, compute and memory partition modes", check_partitions},
      {"gpu_nic_numa", "GPUs and RDMA NICs on different NUMA nodes", check_gpu_nic_numa},
      {"iommu", "the IOMMU translating GPU and NIC DMA", check_iommu},
      {"collective_environment", "NCCL/RCCL variables that turn fast paths off", check_collective_environment},
      {"ranks_per_node", "ranks spread unevenly over the nodes", check_ranks_per_node},
  };
  return table;
}

std::vector<finding> diagnose(const doctor_facts& facts) {
  std::vector<finding> all;
  for (const auto& check : doctor_checks()) {
    for (auto& f : check.run(facts)) {
      f.check = check.id;
      all.push_back(std::move(f));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const finding& a, const finding& b) {
    return static_cast<int>(a.level) > static_cast<int>(b.level);
  });
  return all;
}

}  // namespace ironbench::doctor
