// Where this process sits in a parallel job, read from the launcher's environment: Open MPI's
// mpirun, Slurm's srun (with or without PMIx), PMIx launchers, and MPICH/Hydra mpiexec.
#pragma once

#include <functional>
#include <string>

namespace ironbench::comm {

struct launch_info {
  int rank = 0;
  int size = 1;
  int local_rank = 0;  ///< rank among the processes of this node: selects the GPU
  int local_size = 1;
  /// False when the launcher named no local rank (then 0 above is a guess: see node_ranks).
  bool local_rank_known = true;
  std::string launcher = "none";  ///< "open_mpi", "slurm", "pmix", "mpich" or "none"
};

/// Reads an environment variable; nullptr when unset.
using environment_reader = std::function<const char*(const char* name)>;

/// The job layout from the first launcher whose variables are set (Open MPI, then Slurm,
/// then PMIx, then MVAPICH2, then MPICH/Hydra or Cray PMI). Malformed numbers are ignored
/// (the next source is tried).
[[nodiscard]] launch_info detect_launch(const environment_reader& getenv);

/// detect_launch on the process environment.
[[nodiscard]] launch_info detect_launch();

/// The GPU a process uses when it drives one: local_rank modulo the GPUs visible.
[[nodiscard]] int gpu_for(const launch_info& launch, int visible_gpus);

}  // namespace ironbench::comm
