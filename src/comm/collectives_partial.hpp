// What rank 0 of a collectives run has measured so far, kept while the run goes on so that a
// run that hangs can still write it (with the verdict on who it waits for) before it ends.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "comm/collective_sweep.hpp"
#include "core/device_info.hpp"
#include "session/live_host.hpp"

namespace ironbench::comm {

struct collectives_partial {
  int size = 1;  ///< ranks in the job
  int ranks_per_process = 1;
  std::string backend;  ///< empty until the backend is made
  session::live_host host;
  std::vector<std::string> rank_descriptions;  ///< empty until every rank has described itself
  core::device_info measured;
  std::chrono::system_clock::time_point start;
  std::vector<std::vector<sweep_row>> trials;  ///< the rows of every trial begun, as measured
};

/// collectives_partial behind a mutex: the measuring thread updates it, the watchdog's thread
/// reads it when the run hangs.
struct shared_collectives_partial {
  std::mutex mutex;
  collectives_partial data;
};

}  // namespace ironbench::comm
