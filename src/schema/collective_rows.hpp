// One row of a collectives sweep (a collective at one size, out of place and in place) as the
// sweep measures it and the table prints it, and nccl-tests' bandwidth summary of such rows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "schema/collective_names.hpp"

namespace ironbench::schema {

/// One call's shape for a size as nccl-tests sizes it (-b/-e give this number):
/// all_reduce, broadcast, reduce, sendrecv: the buffer; all_gather: the gathered output;
/// reduce_scatter and alltoall: each rank's whole input.
struct call_shape {
  std::size_t count = 0;  ///< size / element size (rounded as below)
  /// The count each rank passes to the library (nccl-tests' count column): per rank for
  /// all_gather and reduce_scatter, per peer for alltoall, else `count`.
  std::size_t param_count = 0;
  std::size_t send_count = 0;  ///< elements each rank sends
  std::size_t recv_count = 0;  ///< elements each rank receives
  double algorithm_bytes = 0;  ///< S in algbw = S / t
  double bus_factor = 0;       ///< busbw = algbw x bus_factor
};

/// One placement of one row.
struct placement_result {
  bool ran = false;
  std::string skipped;   ///< why not, when !ran
  double time_us = 0;    ///< per iteration, averaged over ranks
  double algbw_gbs = 0;  ///< algorithm bytes / time / 1e9
  double busbw_gbs = 0;  ///< algbw x bus factor
  double wrong = 0;      ///< wrong elements summed over ranks (-1: not checked)
  /// Every rank's time inside the timed iterations (index = rank), from its arrival (after any
  /// injected delay) to its end, in seconds; the straggler report reads it (comm/straggler_report.hpp).
  std::vector<double> rank_seconds;
};

/// One line of the table: a collective at one size.
struct sweep_row {
  collective c;
  element_type type;
  reduce_op op;
  int root;
  std::size_t bytes;
  call_shape shape;
  placement_result out_of_place;
  placement_result in_place;
};

/// nccl-tests' "Avg bus bandwidth" (mean busbw over every size and placement that ran), the
/// same over sizes >= 1 MiB, and the highest busbw with its size.
struct bandwidth_summary {
  double average_gbs = 0;
  double average_from_1mib_gbs = 0;
  double peak_gbs = 0;
  std::size_t peak_bytes = 0;
  double wrong = 0;  ///< over every row and placement
};

/// The bandwidth summary of `rows`.
[[nodiscard]] bandwidth_summary summarize(const std::vector<sweep_row>& rows);

}  // namespace ironbench::schema
