// tp_infer's --backend choices: rows of comm's backend table, so that its help, its errors and
// which backends take GPUs are those of `collectives`.
#include <gtest/gtest.h>

#include "benchmarks/tp/tp_infer_run.hpp"
#include "core/error.hpp"
#include "usage_message.hpp"

namespace ironbench::benchmarks {
namespace {

using testing::usage_message;

TEST(TpInferBackends, AreTheGatheringRowsOfTheCollectiveBackendTable) {
  std::vector<std::string> names;
  for (const auto& row : tp_infer_backends()) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"auto", "mpi", "nccl", "rccl"}));
  EXPECT_EQ(comm::backend_help(tp_infer_backends()),
            "auto (nccl/rccl when every rank has a GPU and the build has them, else mpi), mpi (host buffers), nccl or "
            "rccl (one GPU per rank, chosen by local rank)");
}

TEST(TpInferBackends, UnknownAndUnbuiltBackendsAreUsageErrors) {
  EXPECT_EQ(usage_message([] { comm::validate_backend("mpi-gpu", tp_infer_backends()); }),
            "unknown --backend 'mpi-gpu' (auto, mpi, nccl, rccl)");
  EXPECT_EQ(usage_message([] { comm::validate_backend("auto", tp_infer_backends()); }), testing::no_usage_error);
  EXPECT_EQ(usage_message([] { comm::validate_backend("mpi", tp_infer_backends()); }), testing::no_usage_error);
  const bool gpu_collectives = comm::collective_backend_named("nccl").available;
  EXPECT_EQ(usage_message([] { comm::validate_backend("rccl", tp_infer_backends()); }),
            gpu_collectives ? testing::no_usage_error
                            : "--backend rccl: this build has no GPU collectives (it needs CUDA with NCCL or ROCm "
                              "with RCCL)");
  // auto takes GPUs exactly when the build has GPU collectives; mpi never does.
  EXPECT_EQ(comm::collective_backend_named("auto").takes_gpus, gpu_collectives);
  EXPECT_FALSE(comm::collective_backend_named("mpi").takes_gpus);
  EXPECT_TRUE(comm::collective_backend_named("nccl").takes_gpus);
}

}  // namespace
}  // namespace ironbench::benchmarks
