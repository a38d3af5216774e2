// `ironbench collectives --pairs`: the pairwise sweep on the ranks of an MPI job
// (comm/pairwise_job.hpp) as a command; rank 0 prints the matrices and the named node or link
// and writes the run (settings.pairwise, one case per pair and size).
#pragma once

#include "cli/collectives_arguments.hpp"
#include "cli/commands.hpp"
#include "comm/pairwise_sweep.hpp"

namespace ironbench::cli {

/// The sweep's settings from the collectives command's options (usage_error for bad values;
/// nothing runs): --pairs' mode, the sizes of --minbytes/--maxbytes where either was given
/// (64K, 1M, 16M otherwise), the iterations, --pair-outlier-factor and --inject-fault.
[[nodiscard]] comm::pairwise_settings pairwise_settings_of(const collectives_arguments& arguments);

/// The command: exit 0, 1 when a byte received was wrong, 2 for bad usage, 130 interrupted.
[[nodiscard]] int run_pairs_command(const collectives_arguments& arguments, const invocation& call);

}  // namespace ironbench::cli
