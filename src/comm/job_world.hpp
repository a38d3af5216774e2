// Which ranks a multi-rank workload (collectives, tp_infer) runs with: MPI's world when a
// launcher started several processes or the ranks exchange host buffers through MPI; one
// process with no MPI at all when its ranks are GPUs driven by NCCL/RCCL (one, or several with
// -t/-g, NCCL's unique id made in-process), as nccl-tests' single-process shapes run.
#pragma once

#include <memory>

#include "comm/collective_backends.hpp"
#include "comm/communicator.hpp"
#include "comm/launch_environment.hpp"
#include "session/live_host.hpp"

namespace ironbench::comm {

enum class job_world_kind {
  mpi,          ///< MPI_COMM_WORLD (a launcher's processes, or one process as an MPI singleton)
  one_process,  ///< this process alone: rank 0 of 1, exchanges in memory
};

/// The world a job needs: MPI when `launch` has several processes or `asked` moves host
/// buffers through MPI (mpi, mpi-gpu, and auto where it would pick mpi); this process alone
/// when `asked` is a GPU-collectives backend (nccl, rccl, or auto where this host has a GPU
/// and the build has them). Throws usage_error naming what is missing when the job needs MPI
/// and `build_has_mpi` is false.
[[nodiscard]] job_world_kind job_world_for(const launch_info& launch, const collective_backend_kind& asked,
                                           bool host_has_gpus, bool build_has_mpi);

/// This process alone as a world of one rank (no MPI).
[[nodiscard]] std::shared_ptr<bootstrap> one_process_world();

/// The world of `kind` (MPI's only where the build has MPI).
[[nodiscard]] std::shared_ptr<bootstrap> make_job_world(job_world_kind kind);

/// What a multi-rank workload starts from: the launcher's layout, this host, and the world
/// job_world_for chose for `asked` (made, so MPI is initialised where it is needed).
struct job_start {
  launch_info launch;
  session::live_host host;
  std::shared_ptr<bootstrap> world;
};
[[nodiscard]] job_start start_job(const collective_backend_kind& asked);

}  // namespace ironbench::comm
