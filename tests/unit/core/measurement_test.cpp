#include "core/measurement.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "timed_check.hpp"

namespace ironbench::core {
namespace {

measurement_settings quick_settings() {
  measurement_settings s;
  s.warmup_s = 0;
  s.min_warmup_reps = 2;
  s.min_reps = 5;
  s.max_reps = 50;
  s.min_time_s = 0;
  s.max_time_s = 10;
  s.target_cv = 0.01;
  s.min_sample_s = 0;
  return s;
}

TEST(Measurement, StopsAtTargetNoiseAfterMinReps) {
  std::size_t calls = 0;
  const auto m = run_measurement(quick_settings(), [&](std::size_t n) {
    calls += n;
    return 0.001 * static_cast<double>(n);  // perfectly steady
  });
  EXPECT_EQ(m.stop, stop_reason::target_noise);
  EXPECT_EQ(m.samples_s.size(), 5u);
  EXPECT_EQ(m.warmup_reps, 2u);
  EXPECT_EQ(m.total_iterations, 7u);
  EXPECT_EQ(calls, 7u);
  EXPECT_DOUBLE_EQ(m.time_s.median, 0.001);
  EXPECT_DOUBLE_EQ(m.time_s.cv, 0.0);
}

TEST(Measurement, NoisySamplesRunToMaxReps) {
  std::size_t i = 0;
  const auto m = run_measurement(quick_settings(), [&](std::size_t) { return (i++ % 2) ? 0.001 : 0.002; });
  EXPECT_EQ(m.stop, stop_reason::max_reps);
  EXPECT_EQ(m.samples_s.size(), 50u);
  EXPECT_GT(m.time_s.cv, 0.3);
}

// Timed (docs/testing.md, "Tests that judge time"): bodies that sleep 1 ms give fewer samples
// where a loaded machine's sleeps run long.
TEST(MeasurementTimed, NoisySamplesStopAtMaxTime) {
  auto s = quick_settings();
  s.max_reps = 1000000;
  s.max_time_s = 0.05;
  std::size_t i = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto m = run_measurement(s, [&](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return (i++ % 2) ? 0.001 : 0.002;
  });
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(m.stop, stop_reason::max_time);
  // About 50 samples of 1 ms in the 0.05 s.
  testing::expect_time_not_below("samples of 1 ms in 0.05 s", static_cast<double>(m.samples_s.size()), 50, 45,
                                 "samples");
  testing::expect_time_not_above("the measurement's time, max 0.05 s", elapsed, 0, 2, "s");
}

// Steady samples reach the target noise at once (min_reps 5): more than 5 samples show that
// the minimum time kept it measuring; 100 of 1 ms on an idle machine.
TEST(MeasurementTimed, MinTimeKeepsMeasuringSteadyWork) {
  auto s = quick_settings();
  s.min_time_s = 0.1;
  s.max_reps = 1000;
  const auto m = run_measurement(s, [&](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 0.001;
  });
  EXPECT_EQ(m.stop, stop_reason::target_noise);
  testing::expect_time_not_below("samples of 1 ms in the minimum 0.1 s", static_cast<double>(m.samples_s.size()), 100,
                                 94, "samples");
}

TEST(Measurement, BatchesShortRepetitions) {
  auto s = quick_settings();
  s.min_sample_s = 1e-4;
  const auto m = run_measurement(s, [&](std::size_t n) { return 1e-6 * static_cast<double>(n); });
  EXPECT_EQ(m.batch, 100u);
  EXPECT_DOUBLE_EQ(m.time_s.median, 1e-6);  // per repetition, not per batch
  EXPECT_EQ(m.total_iterations, 2u + 100u * m.samples_s.size());
}

// The warm-up runs until its duration has passed, and stops at the first repetition past it:
// judged on the repetitions' own clock, so however long a loaded machine makes them.
TEST(Measurement, WarmupRunsForItsDurationAndNoLonger) {
  auto s = quick_settings();
  s.warmup_s = 0.02;
  std::vector<std::chrono::steady_clock::time_point> starts, ends;
  const auto m = run_measurement(s, [&](std::size_t) {
    starts.push_back(std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ends.push_back(std::chrono::steady_clock::now());
    return 0.002;
  });
  EXPECT_GE(m.warmup_s, 0.02);
  ASSERT_GE(m.warmup_reps, s.min_warmup_reps);
  ASSERT_GT(starts.size(), m.warmup_reps);
  // All but the last repetition ended before the duration had passed (where the minimum count
  // did not ask for the last).
  if (m.warmup_reps > s.min_warmup_reps) {
    EXPECT_LT(std::chrono::duration<double>(ends[m.warmup_reps - 2] - starts[0]).count(), 0.02);
  }
}

TEST(Measurement, CancelKeepsWhatWasMeasured) {
  std::atomic<bool> cancel{false};
  std::size_t i = 0;
  auto s = quick_settings();
  s.max_reps = 1000;
  s.target_cv = 0;
  const auto m = run_measurement(
      s,
      [&](std::size_t) {
        if (++i == 10) cancel = true;
        return (i % 2) ? 0.001 : 0.002;
      },
      &cancel);
  EXPECT_EQ(m.stop, stop_reason::cancelled);
  EXPECT_EQ(m.samples_s.size(), 8u);  // 2 warm-up calls, then samples until the flag was seen
}

TEST(Measurement, HostTimedMeasuresTheBody) {
  int calls = 0;
  const auto timed = host_timed([&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  const double seconds = timed(3);
  EXPECT_EQ(calls, 3);
  EXPECT_GE(seconds, 0.003);
}

}  // namespace
}  // namespace ironbench::core
