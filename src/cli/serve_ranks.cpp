#include "cli/serve_ranks.hpp"

#include <fmt/format.h>

#include "comm/launch_environment.hpp"
#include "core/error.hpp"
#if IRONBENCH_WITH_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif

namespace ironbench::cli {

serve::client_ranks serve_client_ranks() {
  const auto launch = comm::detect_launch();
  serve::client_ranks ranks;
  if (launch.size <= 1) return ranks;
#if IRONBENCH_WITH_MPI
  const auto world = comm::mpi_world();
  ranks.rank = world->rank();
  ranks.size = world->size();
  ranks.barrier = [world] { world->barrier(); };
  ranks.gather = [world](const std::string& text) { return world->gather(text); };
  ranks.sum = [world](double value) { return world->sum(value); };
  return ranks;
#else
  throw usage_error(fmt::format("serve was started as {} ranks ({}), but this ironbench was built without MPI",
                                launch.size, launch.launcher));
#endif
}

}  // namespace ironbench::cli
