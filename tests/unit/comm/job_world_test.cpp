// Which world a multi-rank job runs with: MPI across processes or for host buffers; one
// process without MPI for GPU collectives (nccl-tests' single-process shapes).
#include "comm/job_world.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "core/error.hpp"

namespace ironbench::comm {
namespace {

collective_backend_kind row(const std::string& name, bool takes_gpus, bool gpu_collectives) {
  collective_backend_kind r;
  r.name = name;
  r.takes_gpus = takes_gpus;
  r.gpu_collectives = gpu_collectives;
  return r;
}

const collective_backend_kind nccl = row("nccl", true, true);
const collective_backend_kind mpi = row("mpi", false, false);
const collective_backend_kind auto_with_nccl = row("auto", true, false);
const collective_backend_kind auto_without_nccl = row("auto", false, false);

launch_info lone() { return {}; }
launch_info two_ranks_by_open_mpi() {
  launch_info l;
  l.rank = 1;
  l.size = 2;
  l.launcher = "open_mpi";
  return l;
}

std::string usage_error_of(const launch_info& l, const collective_backend_kind& asked, bool gpus, bool has_mpi) {
  try {
    (void)job_world_for(l, asked, gpus, has_mpi);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(JobWorld, OneProcessWithGpuCollectivesNeedsNoMpi) {
  EXPECT_EQ(job_world_for(lone(), nccl, true, false), job_world_kind::one_process);
  EXPECT_EQ(job_world_for(lone(), nccl, true, true), job_world_kind::one_process);
  // No GPU: still no MPI; the backend then says the rank has no GPU.
  EXPECT_EQ(job_world_for(lone(), nccl, false, false), job_world_kind::one_process);
  EXPECT_EQ(job_world_for(lone(), auto_with_nccl, true, false), job_world_kind::one_process);
}

TEST(JobWorld, SeveralProcessesAndHostBuffersNeedMpi) {
  EXPECT_EQ(job_world_for(two_ranks_by_open_mpi(), nccl, true, true), job_world_kind::mpi);
  EXPECT_EQ(job_world_for(lone(), mpi, true, true), job_world_kind::mpi);
  EXPECT_EQ(job_world_for(lone(), auto_with_nccl, false, true), job_world_kind::mpi);
  EXPECT_EQ(job_world_for(lone(), auto_without_nccl, true, true), job_world_kind::mpi);
  EXPECT_EQ(usage_error_of(two_ranks_by_open_mpi(), nccl, true, false),
            "this process is rank 1 of 2 started by open_mpi: ranks in several processes need MPI, and this build has "
            "none (install libopenmpi-dev and rebuild)");
  EXPECT_EQ(usage_error_of(lone(), mpi, true, false),
            "--backend mpi: the exchange through MPI needs MPI, and this build has none (install libopenmpi-dev and "
            "rebuild)");
  EXPECT_EQ(usage_error_of(lone(), auto_with_nccl, false, false),
            "--backend auto: without a GPU, the exchange through host buffers needs MPI, and this build has none "
            "(install libopenmpi-dev and rebuild)");
}

TEST(JobWorld, OneProcessIsRankZeroOfOneAndExchangesInMemory) {
  const auto world = one_process_world();
  EXPECT_EQ(world->rank(), 0);
  EXPECT_EQ(world->size(), 1);
  EXPECT_EQ(world->sum(2.5), 2.5);
  EXPECT_EQ(world->max(-1), -1);
  EXPECT_EQ(world->min(3), 3);
  EXPECT_EQ(world->gather("rank 0"), std::vector<std::string>{"rank 0"});
  const char id[8] = "uniqid";
  char copy[8] = {};
  world->all_gather_bytes(id, copy, sizeof id);
  EXPECT_STREQ(copy, "uniqid");
  char root[4] = "abc";
  world->broadcast_bytes(root, sizeof root);  // rank 0's bytes stay
  EXPECT_STREQ(root, "abc");
  world->barrier();
  EXPECT_EQ(make_job_world(job_world_kind::one_process)->description(), "one process (no MPI)");
}

}  // namespace
}  // namespace ironbench::comm
