// `ironbench validate --level burn-in`: every selected device kept busy for a duration with the
// GEMM and STREAM triad benchmarks in turn (compute, then memory traffic, in every interval),
// and reported per interval: each workload's throughput, the device's clock, temperature,
// power and the hardware error counters that rose. Judged by burn_in_verdict.hpp; the rules
// and defaults are in docs/validate.md#burn-in.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "validate/validation.hpp"

namespace ironbench::validate {

/// Receives each console line of the burn-in as it is measured (the plan, one line per interval).
using burn_in_line = std::function<void(const std::string& line)>;

/// Usage errors for the burn-in's settings: --duration below two --interval, an --interval
/// below 1 s, bounds out of range (before anything runs).
void check_burn_in_settings(const validation_settings& s);

/// Whether another interval may start when `measured` intervals have run for `elapsed_s` in all,
/// the last taking `last_interval_s`: the burn-in ends within one interval of its duration
/// (elapsed plus the last interval's length stays within duration + interval), and two
/// intervals always run (a burn-in compares them).
[[nodiscard]] bool next_interval_fits(std::size_t measured, double elapsed_s, double last_interval_s, double duration_s,
                                      double interval_s);

/// Runs the burn-in on this machine's selected devices. Intervals are run until the duration
/// is reached (next_interval_fits: intervals longer than planned mean fewer of them, said in a
/// note and in settings.validation.burn_in.stopped_early) or `cancel` is set (an interval cut short is dropped; what
/// was measured is kept and judged, the run marked interrupted). The report's rows: per device and workload the
/// throughput judgement, per device the hardware error judgement, the last interval's cases
/// against the expected values, and the doctor's checks; every interval is in
/// run.settings["validation"]["burn_in"].
[[nodiscard]] validation_report burn_in_this_machine(const validation_settings& s, const std::vector<std::string>& argv,
                                                     const std::atomic<bool>* cancel, const burn_in_line& line);

}  // namespace ironbench::validate
