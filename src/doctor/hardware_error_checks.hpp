// The doctor's judgement of the hardware error counters that rose during a run (or a burn-in):
// the rule of docs/reliability.md#hardware-error-deltas as findings.
#pragma once

#include <vector>

#include "doctor/doctor_facts.hpp"
#include "doctor/finding.hpp"
#include "telemetry/hardware_error_counters.hpp"

namespace ironbench::doctor {

/// One finding per device whose counters rose in `delta`: critical when an uncorrected count
/// rose (ECC double-bit, rows remapped for uncorrectable errors, a remapping failure, amdgpu
/// RAS "ue") or a hardware XID was reported (telemetry::hardware_xid); a warning when only a
/// corrected count, a pending retirement, the PCIe replay count or an application XID rose.
/// `window` names when ("during the run"). No finding when nothing rose.
[[nodiscard]] std::vector<finding> hardware_error_findings(const telemetry::error_delta& delta,
                                                           const std::string& window = "during the run");

/// The doctor table's check: the findings of facts.hardware_errors (a run's delta, as JSON);
/// none outside a run.
[[nodiscard]] std::vector<finding> check_hardware_errors(const doctor_facts& facts);

}  // namespace ironbench::doctor
