// `ironbench doctor` on this machine: its facts, watched for a moment (steal, throttling), and
// what every check finds in them.
#pragma once

#include <vector>

#include "core/device_info.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "doctor/doctor_facts.hpp"
#include "doctor/finding.hpp"
#include "doctor/gather_facts.hpp"

namespace ironbench::doctor {

struct examination {
  doctor_facts facts;
  std::vector<finding> findings;  ///< most severe first
};

/// Reads this machine's facts for `devices`, watches the host for `window_s` seconds (hypervisor
/// steal, cgroup throttling; 0: not at all) and runs every check.
[[nodiscard]] examination examine_this_machine(const std::vector<core::device_info>& devices, double window_s);

/// What the checks find after a run measured: this machine's facts now, the host's counters
/// since `before` (taken when the run started), the clocks and reasons in the telemetry of the
/// run's cases, and `memory_needed` (its largest host case). The findings as run JSON.
[[nodiscard]] json run_findings(const core::run_result& run, const host_counters& before,
                                std::optional<std::uint64_t> memory_needed);

/// The findings of a multi-rank run (collectives, tp-infer, train) on rank 0: this node's facts
/// and the ranks per node counted from the ranks' descriptions (run.host["ranks"][i]["hostname"]);
/// the cases' telemetry where the run already has its cases (session::rank0_run calls it before
/// they are added, so the clock check does not judge these runs).
[[nodiscard]] json rank0_run_findings(const core::run_result& run);

/// The facts as JSON (what the checks read), for `doctor --json` and the run JSON.
[[nodiscard]] json to_json(const doctor_facts& facts);

/// {"checks": N, "findings": [...], "facts": {...}}
[[nodiscard]] json to_json(const examination& e);

}  // namespace ironbench::doctor
