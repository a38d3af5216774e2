// The ranks of a command started under mpirun or srun: MPI's world as the group `serve` spreads
// its load over (serve/client/client_ranks.hpp) and `validate` gathers its nodes' reports through.
#pragma once

#include "serve/client/client_ranks.hpp"

namespace ironbench::cli {

/// One rank when no launcher started several processes; otherwise MPI's world (usage_error
/// when this build has no MPI).
[[nodiscard]] serve::client_ranks serve_client_ranks();

}  // namespace ironbench::cli
