// The collectives sweep printed the way nccl-tests prints it (so that people and scripts used
// to its tables read ours), with ironbench's extra footer lines.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "comm/collective_sweep.hpp"

namespace ironbench::report {

/// nccl-tests' name of an element type: int8, int32, half, bfloat16, float, double.
[[nodiscard]] const char* nccl_tests_type_name(comm::element_type type);

/// The column headers, one line per row, and the footer: "# Out of bounds values : N OK|FAILED",
/// "# Avg bus bandwidth    : X" (nccl-tests' mean over every size), then the mean over sizes
/// >= 1 MiB and the peak.
void write_collectives_table(std::ostream& out, const std::vector<comm::sweep_row>& rows);

/// Per size and placement over several trials: mean, stdev and CV of busbw and time.
struct trial_statistics {
  comm::collective c;
  std::size_t bytes;
  const char* placement;
  double busbw_mean_gbs, busbw_stdev_gbs, busbw_cv;
  double time_mean_us, time_stdev_us;
};
[[nodiscard]] std::vector<trial_statistics> trial_statistics_of(const std::vector<std::vector<comm::sweep_row>>& trials);
void write_trial_table(std::ostream& out, const std::vector<trial_statistics>& stats, std::size_t trials);

}  // namespace ironbench::report
