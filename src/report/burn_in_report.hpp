// The HTML report's part on a burn-in (`validate --level burn-in`, settings.validation.burn_in):
// one table per run with a row per interval and device (each workload's throughput, clock,
// temperature, power, the error counts that rose), and each workload's throughput drawn as a
// bar per interval. Nothing for runs without a burn-in.
#pragma once

#include <ostream>

#include "core/json.hpp"

namespace ironbench::report {

/// Writes the burn-in of one run's validation (`validation` is settings.validation) under a
/// heading; nothing when it has no burn_in.
void write_burn_in_section(std::ostream& out, const json& validation);

}  // namespace ironbench::report
