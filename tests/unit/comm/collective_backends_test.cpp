#include "comm/collective_backends.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::comm {
namespace {

TEST(CollectiveBackends, TableNamesEveryBackendInOrder) {
  std::vector<std::string> names;
  for (const auto& row : collective_backends()) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"auto", "mpi", "mpi-gpu", "nccl", "rccl"}));
  EXPECT_FALSE(collective_backend_named("auto").create);
  EXPECT_FALSE(collective_backend_named("mpi").takes_gpus);
  EXPECT_TRUE(collective_backend_named("nccl").gpu_collectives);
  EXPECT_FALSE(collective_backend_named("mpi-gpu").gpu_collectives);
}

TEST(CollectiveBackends, HelpTextListsRowsWithTheSameHelpTogether) {
  EXPECT_EQ(backend_help(collective_backends()),
            "auto (nccl/rccl when every rank has a GPU and the build has them, else mpi), mpi (host buffers), mpi-gpu "
            "(GPU buffers handed to a GPU-aware MPI), nccl or rccl (one GPU per rank, chosen by local rank)");
}

TEST(CollectiveBackends, UnknownNameNamesEveryRowOfTheSubset) {
  try {
    validate_backend("gloo", collective_backends());
    FAIL() << "gloo accepted";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "unknown --backend 'gloo' (auto, mpi, mpi-gpu, nccl, rccl)");
  }
  const auto subset = collective_backends_named({"auto", "mpi", "nccl", "rccl"});
  ASSERT_EQ(subset.size(), 4u);
  try {
    validate_backend("mpi-gpu", subset);
    FAIL() << "mpi-gpu accepted by a subset without it";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "unknown --backend 'mpi-gpu' (auto, mpi, nccl, rccl)");
  }
  EXPECT_NO_THROW(validate_backend("auto", subset));
  EXPECT_NO_THROW(validate_backend("mpi", subset));
}

TEST(CollectiveBackends, RcclAndNcclAreTakenExactlyWhenTheBuildHasGpuCollectives) {
  const auto& nccl = collective_backend_named("nccl");
  if (nccl.available) {
    EXPECT_NO_THROW(validate_backend("rccl", collective_backends()));
    EXPECT_NO_THROW(validate_backend("nccl", collective_backends()));
    return;
  }
  try {
    validate_backend("rccl", collective_backends());
    FAIL() << "rccl accepted without GPU collectives";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(),
                 "--backend rccl: this build has no GPU collectives (it needs CUDA with NCCL or ROCm with "
                 "RCCL)");
  }
}

TEST(CollectiveBackends, AutoResolvesByWhetherTheRanksTookGpus) {
  EXPECT_EQ(resolve_backend("auto", true).name, "nccl");
  EXPECT_EQ(resolve_backend("auto", false).name, "mpi");
  EXPECT_EQ(resolve_backend("mpi-gpu", true).name, "mpi-gpu");
}

}  // namespace
}  // namespace ironbench::comm
