// The checks of `ironbench doctor`, in one table: each reads the facts (doctor_facts.hpp) and
// returns what it found. A new check is a function in one of the *_checks files and a row here.
#pragma once

#include <vector>

#include "doctor/doctor_facts.hpp"
#include "doctor/finding.hpp"

namespace ironbench::doctor {

using check_function = std::vector<finding> (*)(const doctor_facts& facts);

struct doctor_check {
  const char* id;    ///< the findings' `check`
  const char* what;  ///< one line, for docs and --list
  check_function run;
};

/// Every check, host first, then GPUs, then collectives.
[[nodiscard]] const std::vector<doctor_check>& doctor_checks();

/// Runs every check on `facts`: the findings, most severe first (the table's order within a
/// severity).
[[nodiscard]] std::vector<finding> diagnose(const doctor_facts& facts);

}  // namespace ironbench::doctor
