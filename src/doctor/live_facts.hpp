// The doctor's facts for this machine, now: /proc and /sys, the process environment, the
// OpenBLAS this binary loaded, and each GPU's management library (NVML, ROCm SMI).
#pragma once

#include <vector>

#include "core/device_info.hpp"
#include "doctor/doctor_facts.hpp"
#include "doctor/gather_facts.hpp"

namespace ironbench::doctor {

/// What each of `devices`' GPUs reports through its management library (empty JSON when the
/// library is not there).
[[nodiscard]] std::vector<gpu_to_check> gpus_to_check(const std::vector<core::device_info>& devices);

/// Every fact of this machine for `devices` (the window, cases and memory needed are left to
/// the caller).
[[nodiscard]] doctor_facts live_facts(const std::vector<core::device_info>& devices);

/// The host's counters now (for a run's window).
[[nodiscard]] host_counters live_host_counters();

}  // namespace ironbench::doctor
