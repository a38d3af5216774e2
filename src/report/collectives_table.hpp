// The collectives sweep printed the way nccl-tests prints it (so that people and scripts used
// to its tables read ours), with ironbench's extra footer lines.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "schema/collective_rows.hpp"

namespace ironbench::report {

/// The column headers, one line per row, and the footer: "# Out of bounds values : N OK|FAILED",
/// "# Avg bus bandwidth    : X" (nccl-tests' mean over every size), then the mean over sizes
/// >= 1 MiB and the peak.
void write_collectives_table(std::ostream& out, const std::vector<schema::sweep_row>& rows);

/// Per size and placement over several trials: mean, stdev and CV of busbw and time.
struct trial_statistics {
  schema::collective c;
  std::size_t bytes;
  const char* placement;
  double busbw_mean_gbs, busbw_stdev_gbs, busbw_cv;
  double time_mean_us, time_stdev_us;
};
[[nodiscard]] std::vector<trial_statistics> trial_statistics_of(
    const std::vector<std::vector<schema::sweep_row>>& trials);
/// The trial table: "# N trials: ..." and one line per size and placement.
void write_trial_table(std::ostream& out, const std::vector<trial_statistics>& stats, std::size_t trials);

/// The sweep settings the console header names.
struct collectives_header {
  int ranks = 1;
  std::string backend;
  std::size_t min_bytes = 0, max_bytes = 0;
  std::size_t step_bytes = 0;  ///< 0: the size grows by step_factor
  double step_factor = 2;
  int warmup_iterations = 0, iterations = 0;
  bool check = true;
};

/// A collectives run as nccl-tests prints one: "# ironbench collectives: N ranks, BACKEND, minBytes
/// ...", a "#  Rank ..." line per rank of `run.host["ranks"]`, the table of each trial (with the
/// trial table when there are several), and "run STATUS: REASON".
void write_collectives_console(std::ostream& out, const collectives_header& header, const core::run_result& run,
                               const std::vector<std::vector<schema::sweep_row>>& trials);

}  // namespace ironbench::report
