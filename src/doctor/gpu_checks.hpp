// The GPUs' checks, for both vendors: clocks below the maximum during a case and why, power
// limit below the default (critical below 90 % of it), ECC errors and retired or remapped memory, PCIe link below the
// device's maximum, persistence mode, MIG or compute/memory partitions, a GPU and the RDMA NICs
// on different NUMA nodes, and the IOMMU translating DMA. Clocks held back only by power capping
// (sw_power_cap) at the default power limit are no finding: a GPU under dense work sits at its
// power limit, as DCGM's diagnostics expect; under a lowered limit the finding names it.
#pragma once

#include <vector>

#include "doctor/doctor_facts.hpp"
#include "doctor/finding.hpp"

namespace ironbench::doctor {

[[nodiscard]] std::vector<finding> check_gpu_clocks(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_power_limit(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_memory_errors(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_pcie_link(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_persistence(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_partitions(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_gpu_nic_numa(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_iommu(const doctor_facts& facts);

}  // namespace ironbench::doctor
