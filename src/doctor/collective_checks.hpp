// The collectives' checks: NCCL/RCCL environment variables that turn fast paths off, and
// ranks spread unevenly over the nodes.
#pragma once

#include <vector>

#include "doctor/doctor_facts.hpp"
#include "doctor/finding.hpp"

namespace ironbench::doctor {

[[nodiscard]] std::vector<finding> check_collective_environment(const doctor_facts& facts);
[[nodiscard]] std::vector<finding> check_ranks_per_node(const doctor_facts& facts);

}  // namespace ironbench::doctor
