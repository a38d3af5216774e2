// What differs between the environments of compared sides: kernel, OS, hypervisor, container,
// cgroup limits, CPU, memory, libraries, GPU, driver and GPU partition mode, read from each
// side's first run (its host fingerprint and devices). `ironbench compare` prints it above the
// numbers (report/environment_table.hpp), so a difference in the numbers is read next to a
// difference in the setup.
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"
#include "results/comparison.hpp"

namespace ironbench::results {

/// One fact of an environment and its value on each side ("" when a side does not say).
struct environment_fact {
  std::string name;
  std::vector<std::string> values;
};

/// The facts of one run, in table order: the fixed facts, then every library version.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> environment_facts(const core::run_result& run);

/// The facts whose values are not the same on every side (a fact no side states is left out).
[[nodiscard]] std::vector<environment_fact> environment_difference(const std::vector<comparison_side>& sides);

}  // namespace ironbench::results
