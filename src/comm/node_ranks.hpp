// Local ranks from host names, for launchers that do not export them: without a local rank
// every process of a node would drive its first GPU.
#pragma once

#include <string>

#include "comm/communicator.hpp"
#include "comm/launch_environment.hpp"

namespace ironbench::comm {

/// When some rank's `launch` has no local rank, or a rank or size that is not MPI's (variables
/// of an enclosing job), and the job has several ranks: sets every rank's local_rank to the
/// number of lower ranks on the same host and local_size to the ranks on it, from every
/// rank's `host_name` (a collective call: every rank must make it).
void assign_local_ranks_by_host(launch_info& launch, bootstrap& world, const std::string& host_name);

/// This machine's host name (gethostname).
[[nodiscard]] std::string this_host_name();

}  // namespace ironbench::comm
