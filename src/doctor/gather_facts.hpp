// Reads the facts the doctor's checks judge (doctor/doctor_facts.hpp) from a Linux tree (the
// real "/" or a fake one in tests), and the host's state before and after a measurement.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor_facts.hpp"
#include "platform/cpu_info.hpp"
#include "platform/cpu_load.hpp"
#include "platform/sysfs_reader.hpp"

namespace ironbench::doctor {

/// A GPU the facts should cover: its id, vendor and PCI bus id, and what its management
/// library reports (doctor/gpu_management.hpp gives it for the live machine).
struct gpu_to_check {
  std::string id;
  std::string vendor;
  std::string pci_bus_id;
  json management = json::object();
};

/// CPU, memory, cgroup, NIC and IOMMU facts from below `reader`'s root, the GPUs' PCIe links
/// and NUMA nodes, and the variables of `environment` that the checks read.
[[nodiscard]] doctor_facts gather_facts(const platform::sysfs_reader& reader,
                                        const std::map<std::string, std::string>& environment,
                                        const std::vector<gpu_to_check>& gpus);

/// The widest vector instruction set of a CPU with these features.
[[nodiscard]] vector_isa widest_isa(const platform::isa_flags& isa);

/// The process environment as a map (the variables the checks read: NCCL_*, RCCL_*, HSA_*,
/// CUDA_*, OPENBLAS_*, OMP_*).
[[nodiscard]] std::map<std::string, std::string> checked_environment();

/// The host's counters at one moment: /proc/stat and the process's cgroup cpu.stat.
struct host_counters {
  std::optional<platform::cpu_times> cpu;
  std::optional<std::int64_t> nr_periods;
  std::optional<std::int64_t> nr_throttled;
  std::optional<double> throttled_s;
  double time_s = 0;  ///< a monotonic clock
};

[[nodiscard]] host_counters read_host_counters(const platform::sysfs_reader& reader, double time_s);

/// What changed between two readings.
[[nodiscard]] run_window_facts window_between(const host_counters& before, const host_counters& after);

}  // namespace ironbench::doctor
