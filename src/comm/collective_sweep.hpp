// A size sweep of collectives as nccl-tests runs it: for each collective and size, out of
// place then in place, the result checked once (#wrong), then warm-up iterations and timed
// iterations back to back; time per iteration averaged over the ranks.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "comm/communicator.hpp"

namespace ironbench::comm {

/// What to sweep; the defaults are nccl-tests' where it has one.
struct sweep_settings {
  std::vector<collective> collectives = {collective::all_reduce};
  element_type type = element_type::fp32;          ///< -d
  reduce_op op = reduce_op::sum;                   ///< -o
  int root = 0;                                    ///< -r
  std::size_t min_bytes = 8;                       ///< -b
  std::size_t max_bytes = std::size_t{128} << 20;  ///< -e
  double factor = 2;                               ///< -f: multiply the size by this ...
  std::size_t increment = 0;                       ///< -i: ... or, when non-zero, add this
  int warmup_iterations = 5;                       ///< -w
  int iterations = 20;                             ///< -n
  bool check = true;                               ///< -c: count wrong elements
  int graph_launches = 0;  ///< -G: record the -n iterations in a GPU graph, time this many replays
  bool in_place = true;    ///< also run in place (nccl-tests always does)
  bool out_of_place = true;
  int slow_rank = -1;  ///< --inject-fault slow@R: this rank sleeps `slow_ms` before each step's timed iterations
  double slow_ms = 0;
};

/// The sizes of a sweep: min, then x factor (or + increment) while <= max.
[[nodiscard]] std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                                   std::size_t increment);

/// How timed iterations spread over memory: iteration i uses slice i % slices, each slice
/// `stride_bytes` (the larger buffer of one call) after the previous. As nccl-tests'
/// startColl: slices = max_bytes / stride when the backend rotates, else 1.
struct buffer_rotation {
  std::size_t slices = 1;
  std::size_t stride_bytes = 0;
};
[[nodiscard]] buffer_rotation rotation_of(const call_shape& shape, std::size_t element_bytes, std::size_t max_bytes,
                                          bool rotates);

/// The rows of a sweep (schema/collective_rows.hpp).
using schema::placement_result;
using schema::sweep_row;

/// Called before each measured step (a watchdog's heartbeat).
using sweep_progress = std::function<void(const std::string& step)>;

/// Asked on every rank before each size; every rank must get the same answer (a vote over the
/// ranks). True ends the sweep with the rows measured so far.
using sweep_stop = std::function<bool()>;

/// Called with each row as soon as it is measured (results kept should the run hang later).
using sweep_row_done = std::function<void(const sweep_row& row)>;

/// Runs the sweep on every rank (all ranks must call it with the same settings). Every rank
/// gets the same rows.
[[nodiscard]] std::vector<sweep_row> run_sweep(bootstrap& world, collective_backend& backend,
                                               const sweep_settings& settings, const sweep_progress& progress = {},
                                               const sweep_stop& stop = {}, const sweep_row_done& row_done = {});

/// nccl-tests' bandwidth summary of rows (schema/collective_rows.hpp).
using schema::bandwidth_summary;
using schema::summarize;

}  // namespace ironbench::comm
