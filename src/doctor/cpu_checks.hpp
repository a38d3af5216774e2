// The host's checks: the BLAS kernels against the CPU, frequency governor and boost, SMT,
// automatic NUMA balancing, transparent huge pages, a cpuset or CPU quota smaller than the
// machine, memory below the run's needs; and, over a run's window, hypervisor steal and
// cgroup CPU throttling. The findings about the CPU as a benchmark device (its BLAS kernels,
// SMT, transparent huge pages, a cpuset) name the device "cpu", so they do not concern a GPU's
// cases; the others concern the whole host.
#pragma once

#include <vector>

#include "doctor/doctor_facts.hpp"
#include "doctor/finding.hpp"

namespace ironbench::doctor {

[[nodiscard]] std::vector<finding> check_blas_kernels(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_cpu_governor(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_cpu_boost(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_smt(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_numa_balancing(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_hugepages(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_cpu_allowance(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_memory(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_steal(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_cgroup_throttling(const doctor_facts& facts);

/// The vector ISA an OpenBLAS kernel family ("Prescott", "Haswell", "SkylakeX" ...) uses;
/// nullopt for names it does not know (other architectures).
[[nodiscard]] std::optional<vector_isa> openblas_core_isa(const std::string& core_name);

}  // namespace ironbench::doctor
