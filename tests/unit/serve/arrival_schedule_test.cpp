// The arrival schedule under a ramp-up and within a duration: the rate at the ramp's start and
// end, the arrivals of a window against their expected count (exactly, with gaps of almost no
// spread; within a Poisson bound, with burstiness 1 and a fixed seed), the cap, and the ramps
// a schedule cannot follow.
#include "serve/workload/arrival_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "serve/sweep/serve_sweep.hpp"

namespace ironbench::serve {
namespace {

constexpr double steady_burstiness = 1e8;  // gamma gaps of shape 1e8: spread 0.01 % of their mean

std::size_t arrivals_in(const std::vector<double>& times, double from_s, double to_s) {
  return static_cast<std::size_t>(
      std::count_if(times.begin(), times.end(), [&](double t) { return t >= from_s && t < to_s; }));
}

TEST(RampUpSchedule, RateRunsFromStartToEnd) {
  const ramp_up linear{ramp_strategy::linear, 10, 50};
  EXPECT_DOUBLE_EQ(ramp_rate(linear, 0), 10);
  EXPECT_DOUBLE_EQ(ramp_rate(linear, 0.5), 30);
  EXPECT_DOUBLE_EQ(ramp_rate(linear, 1), 50);
  EXPECT_DOUBLE_EQ(ramp_rate(linear, 2), 50);  // clamped
  const ramp_up exponential{ramp_strategy::exponential, 4, 64};
  EXPECT_DOUBLE_EQ(ramp_rate(exponential, 0), 4);
  EXPECT_NEAR(ramp_rate(exponential, 0.5), 16, 1e-12);  // the geometric mean
  EXPECT_NEAR(ramp_rate(exponential, 1), 64, 1e-12);
}

// vLLM's ramp over N requests: the gap after request i is drawn at the rate of i / (N - 1).
TEST(RampUpSchedule, ByRequestTheFirstGapIsAtTheStartRateAndTheLastNearTheEnd) {
  const ramp_up ramp{ramp_strategy::linear, 10, 50};
  const auto times = ramp_arrival_times(101, ramp, steady_burstiness, 7);
  ASSERT_EQ(times.size(), 101U);
  EXPECT_EQ(times.front(), 0);
  EXPECT_NEAR(1 / (times[1] - times[0]), 10, 0.01);                        // the instantaneous rate at the start
  EXPECT_NEAR(1 / (times[100] - times[99]), ramp_rate(ramp, 0.99), 0.05);  // at the end: 49.6/s
  // Rising throughout; the same seed, the same schedule.
  for (std::size_t i = 2; i < times.size(); ++i) EXPECT_LT(times[i] - times[i - 1], times[i - 1] - times[i - 2]);
  EXPECT_EQ(times, ramp_arrival_times(101, ramp, steady_burstiness, 7));
  // Without the ramp the gaps do not shrink: the start rate throughout.
  const auto flat = arrival_times(101, 10, steady_burstiness, 7);
  EXPECT_NEAR(1 / (flat[100] - flat[99]), 10, 0.01);
}

// Bounded by time: with gaps of almost no spread, the k-th arrival falls where the ramp expects
// k, so the arrivals of any window are its expected count to within one.
TEST(RampUpSchedule, ByTimeWindowsHoldTheirExpectedArrivals) {
  for (const auto strategy : {ramp_strategy::linear, ramp_strategy::exponential}) {
    const ramp_up ramp{strategy, 5, 80};
    const double duration = 10;
    const auto times =
        timed_arrival_times(duration, 100000, std::numeric_limits<double>::infinity(), ramp, steady_burstiness, 3);
    SCOPED_TRACE(to_string(strategy));
    ASSERT_FALSE(times.empty());
    EXPECT_LT(times.back(), duration);
    // The instantaneous rate at the start and at the end: one gap's rate is the ramp's mean
    // over it, its rate at the gap's middle (exactly for the linear ramp), from 5/s up to 80/s.
    const auto gap_rate_error = [&](std::size_t i) {
      const double middle = (times[i] + times[i - 1]) / 2;
      return 1 / (times[i] - times[i - 1]) / ramp_rate(ramp, middle / duration) - 1;
    };
    EXPECT_NEAR(gap_rate_error(1), 0, 0.01);
    EXPECT_NEAR(gap_rate_error(times.size() - 1), 0, 0.01);
    EXPECT_LT(ramp_rate(ramp, (times[0] + times[1]) / 2 / duration), 6);
    EXPECT_GT(ramp_rate(ramp, (times[times.size() - 2] + times.back()) / 2 / duration), 79);
    for (const auto& [from, to] :
         {std::pair{0.0, 2.0}, std::pair{4.0, 6.0}, std::pair{8.0, 10.0}, std::pair{0.0, 10.0}}) {
      const double expected = ramp_expected_arrivals(ramp, duration, to) - ramp_expected_arrivals(ramp, duration, from);
      EXPECT_NEAR(static_cast<double>(arrivals_in(times, from, to)), expected, 1.01) << from << " to " << to;
    }
  }
  // The linear ramp's whole count over 9.9 s: (5 + 80) / 2 x 9.9 = 420.75 expected, so the
  // arrivals at expected counts 0, 1, ..., 420: 421.
  const auto linear = timed_arrival_times(9.9, 100000, 1, ramp_up{ramp_strategy::linear, 5, 80}, steady_burstiness, 3);
  EXPECT_EQ(linear.size(), 421U);
}

// Burstiness 1: a Poisson process of the ramp's rate. Each window's count, with a fixed seed,
// is within four standard deviations (sqrt of the mean) of its expected count.
TEST(RampUpSchedule, PoissonArrivalsOfEachWindowAreWithinTheirBound) {
  const ramp_up ramp{ramp_strategy::linear, 10, 50};
  const double duration = 20;
  const auto times = timed_arrival_times(duration, 100000, 1, ramp, 1.0, 42);
  const double early = ramp_expected_arrivals(ramp, duration, 5);                                               // 75
  const double late = ramp_expected_arrivals(ramp, duration, 20) - ramp_expected_arrivals(ramp, duration, 15);  // 225
  EXPECT_DOUBLE_EQ(early, 75);
  EXPECT_DOUBLE_EQ(late, 225);
  EXPECT_NEAR(static_cast<double>(arrivals_in(times, 0, 5)), early, 4 * std::sqrt(early));
  EXPECT_NEAR(static_cast<double>(arrivals_in(times, 15, 20)), late, 4 * std::sqrt(late));
  EXPECT_NEAR(static_cast<double>(times.size()), 600, 4 * std::sqrt(600.0));
  // A constant 10/s over the same 20 s: no more arrivals late than early.
  const auto flat = timed_arrival_times(duration, 100000, 10, ramp_up{}, 1.0, 42);
  EXPECT_NEAR(static_cast<double>(arrivals_in(flat, 15, 20)), 50, 4 * std::sqrt(50.0));
  EXPECT_NEAR(static_cast<double>(flat.size()), 200, 4 * std::sqrt(200.0));
}

TEST(RampUpSchedule, TheCapCutsTheSameSchedule) {
  const ramp_up ramp{ramp_strategy::exponential, 2, 20};
  const auto whole = timed_arrival_times(30, 100000, 1, ramp, 1.0, 9);
  ASSERT_GT(whole.size(), 20U);
  const auto capped = timed_arrival_times(30, 20, 1, ramp, 1.0, 9);
  EXPECT_EQ(capped, std::vector<double>(whole.begin(), whole.begin() + 20));
  // A closed loop (rate inf, no ramp): every request of the cap at 0.
  EXPECT_EQ(timed_arrival_times(30, 5, std::numeric_limits<double>::infinity(), ramp_up{}, 1, 9),
            std::vector<double>(5, 0.0));
}

TEST(RampUpSchedule, RampsAScheduleCannotFollowAreUsageErrors) {
  EXPECT_NO_THROW(check_ramp_up(ramp_up{ramp_strategy::linear, 1, 1}));
  EXPECT_THROW(check_ramp_up(ramp_up{ramp_strategy::linear, 0, 5}), usage_error);
  EXPECT_THROW(check_ramp_up(ramp_up{ramp_strategy::exponential, 6, 5}), usage_error);
  EXPECT_THROW(check_ramp_up(ramp_up{ramp_strategy::linear, 1, std::numeric_limits<double>::infinity()}), usage_error);
  EXPECT_THROW(check_ramp_up(ramp_up{ramp_strategy::linear, std::nan(""), 5}), usage_error);
  EXPECT_EQ(parse_ramp_strategy("exponential"), ramp_strategy::exponential);
  EXPECT_THROW((void)parse_ramp_strategy("cubic"), usage_error);
  EXPECT_THROW((void)timed_arrival_times(0, 5, 1, ramp_up{}, 1, 0), usage_error);
  EXPECT_THROW((void)timed_arrival_times(max_schedule_s * 2, 5, 1, ramp_up{}, 1, 0), usage_error);
}

// How many requests a point bounded by time prepares: its schedule's arrivals within the
// duration (capped), or the cap for a closed loop.
TEST(RampUpSchedule, TimedPointPreparesTheArrivalsOfItsDuration) {
  load_settings load;
  load.duration_s = 9.9;
  load.request_rate = 5;
  load.burstiness = steady_burstiness;
  EXPECT_EQ(timed_point_requests(load, 1000), 50);  // 0, 0.2, ..., 9.8 s
  EXPECT_EQ(timed_point_requests(load, 20), 20);    // --num-prompts caps
  load.request_rate = std::numeric_limits<double>::infinity();
  EXPECT_EQ(timed_point_requests(load, 1000), 1000);  // a closed loop: the cap
  load.duration_s = 0;
  load.request_rate = 5;
  EXPECT_EQ(timed_point_requests(load, 1000), 1000);  // not bounded by time
}

}  // namespace
}  // namespace ironbench::serve
