// The run that a multi-rank command writes when its watchdog ends a hang or a rank died
// (comm/watchdog.hpp; rank 0 writes it, or the lowest rank alive when rank 0 died): what was
// measured so far, status interrupted, a reason that names the ranks the job waits for or lost,
// and the verdict under settings.hang (comm::hang_json). Shared by collectives, collectives
// --pairs, tp-infer and train.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "comm/hang_culprits.hpp"
#include "core/result.hpp"
#include "report/run_outputs.hpp"

namespace ironbench::cli {

/// Where a hung run goes: the command's requested outputs (report::write_run_outputs).
struct hung_run_outputs {
  const std::vector<report::output_target>& targets;
  const report::output_options& options;
  std::string hostname;
  std::chrono::system_clock::time_point start;
  std::function<void(std::ostream&)> console;  ///< the console report of what is kept
};

/// Marks `run` as ended by a hang (status interrupted; the reason "ended by the watchdog: LINE;
/// `kept` are kept", LINE naming the culprits; settings.hang) and writes every output of `to`
/// (its console writer sees `run` marked), then flushes std::cout: the process ends with _Exit
/// right after, which flushes nothing.
void write_hung_run(core::run_result& run, const comm::hang_verdict& verdict, double timeout_s, std::string_view kept,
                    const hung_run_outputs& to);

}  // namespace ironbench::cli
