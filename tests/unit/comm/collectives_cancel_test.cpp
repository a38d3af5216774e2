// run_collectives stops when its cancellation token is set: every rank at the same size, with
// the sizes measured so far kept (here on a one-rank MPI job, MPI's singleton start-up).
#include <gtest/gtest.h>

#include <atomic>

#include "comm/collectives_run.hpp"

namespace ironbench::comm {
namespace {

#if IRONBENCH_TEST_MPI
// all_reduce of fp32 over 8, 16, 32 and 64 bytes, out of place and in place: eight measured
// steps per trial; `cancel` is set at step `cancel_at` (1-based; 0: before the run).
collectives_outcome run_cancelled_at(int cancel_at, int trials) {
  static std::atomic<bool> cancel{false};
  cancel = cancel_at == 0;
  collectives_settings s;
  s.base.min_bytes = 8;
  s.base.max_bytes = 64;
  s.base.warmup_iterations = 0;
  s.base.iterations = 2;
  s.trials = trials;
  s.backend = "mpi";
  int steps = 0;
  s.rank0_progress = [&](const std::string&) {
    if (++steps == cancel_at) cancel = true;
  };
  return run_collectives(s, &cancel);
}

TEST(CollectivesCancel, ATokenSetBeforeTheRunMeasuresNothing) {
  const auto outcome = run_cancelled_at(0, 1);
  EXPECT_TRUE(outcome.interrupted);
  ASSERT_EQ(outcome.trials.size(), 1u);
  EXPECT_TRUE(outcome.trials.front().empty());
}

TEST(CollectivesCancel, TheSizeUnderWayFinishesAndIsKept) {
  const auto outcome = run_cancelled_at(1, 1);  // during the first size's out-of-place step
  EXPECT_TRUE(outcome.interrupted);
  ASSERT_EQ(outcome.trials.size(), 1u);
  ASSERT_EQ(outcome.trials.front().size(), 1u);
  const auto& row = outcome.trials.front().front();
  EXPECT_EQ(row.bytes, 8u);
  EXPECT_TRUE(row.out_of_place.ran);
  EXPECT_TRUE(row.in_place.ran);
  EXPECT_EQ(row.out_of_place.wrong + row.in_place.wrong, 0);
}

TEST(CollectivesCancel, APartialTrialIsDroppedWhenAWholeOneFinished) {
  const auto outcome = run_cancelled_at(9, 3);  // the first step of the second trial
  EXPECT_TRUE(outcome.interrupted);
  ASSERT_EQ(outcome.trials.size(), 1u);
  EXPECT_EQ(outcome.trials.front().size(), 4u);
}

TEST(CollectivesCancel, ATokenNeverSetLetsEveryTrialRun) {
  const auto outcome = run_cancelled_at(-1, 2);
  EXPECT_FALSE(outcome.interrupted);
  ASSERT_EQ(outcome.trials.size(), 2u);
  EXPECT_EQ(outcome.trials.back().size(), 4u);
}
#else
TEST(CollectivesCancel, NeedsMpi) { GTEST_SKIP() << "this build has no MPI"; }
#endif

}  // namespace
}  // namespace ironbench::comm
