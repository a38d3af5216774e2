// The trend detector on synthetic histories: one injected 10 % step found at the run where it
// appears, and the false-alarm rate on noise only, measured over many seeds.
#include "results/trend_detection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

namespace ironbench::results {
namespace {

// A run like a bandwidth case: `samples` timings around `time_s` (lognormal, `sample_cv`), with a
// run-to-run factor (`run_cv`: another boot, another placement); value = 1 / median time.
trend_point synthetic_run(std::mt19937_64& random, double time_s, double sample_cv, double run_cv, int samples) {
  std::normal_distribution<double> run_noise(0, run_cv), sample_noise(0, sample_cv);
  const double level = time_s * std::exp(run_noise(random));
  trend_point p;
  for (int s = 0; s < samples; ++s) p.samples_s.push_back(level * std::exp(sample_noise(random)));
  auto sorted = p.samples_s;
  std::sort(sorted.begin(), sorted.end());
  const auto n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  p.value = 1e-3 / median;  // GB/s of 1 MB moved
  return p;
}

struct history_shape {
  int runs = 50;
  int step_at = -1;    ///< the first run at the new level (-1: none)
  double step = 0.10;  ///< the value drops by this share from step_at on
  double sample_cv = 0.03;
  double run_cv = 0.005;
  int samples = 20;
  bool keep_samples = true;  ///< false: values only, as imported runs have
};

std::vector<trend_point> history(std::uint64_t seed, const history_shape& shape) {
  std::mt19937_64 random(seed);
  std::vector<trend_point> points;
  for (int i = 0; i < shape.runs; ++i) {
    const double time = 1e-3 * (shape.step_at >= 0 && i >= shape.step_at ? 1 / (1 - shape.step) : 1.0);
    auto p = synthetic_run(random, time, shape.sample_cv, shape.run_cv, shape.samples);
    if (!shape.keep_samples) p.samples_s.clear();
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<std::size_t> flagged(const std::vector<trend_verdict>& verdicts) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (verdicts[i].flag == trend_flag::regression || verdicts[i].flag == trend_flag::improvement) at.push_back(i);
  }
  return at;
}

TEST(TrendDetection, FindsOneTenPercentStepAtTheRunWhereItAppears) {
  history_shape shape;
  shape.runs = 30;
  shape.step_at = 20;
  const auto points = history(1, shape);
  const auto verdicts = detect_changes(points, {});
  ASSERT_EQ(flagged(verdicts), std::vector<std::size_t>{20});
  const auto& v = verdicts[20];
  EXPECT_EQ(v.flag, trend_flag::regression);
  EXPECT_NEAR(v.change, -0.10, 0.02);
  ASSERT_TRUE(v.p_value.has_value());
  EXPECT_LT(*v.p_value, 1e-6);
  ASSERT_TRUE(v.speedup_high.has_value());
  EXPECT_LT(*v.speedup_high, 1);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::history) << i;
  for (std::size_t i = 21; i < 25; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::history) << "the new level builds up";
  EXPECT_EQ(verdicts[25].flag, trend_flag::steady);

  // Lower is better (a latency): the same values are an improvement, a rise a regression.
  trend_options lower;
  lower.higher_is_better = false;
  EXPECT_EQ(detect_changes(points, lower)[20].flag, trend_flag::improvement);
}

// Over many seeds: the step is found, at its run, in (nearly) every history, with samples and
// with values only.
TEST(TrendDetection, TheStepIsFoundAtItsRunOverManySeeds) {
  for (const bool keep_samples : {true, false}) {
    history_shape shape;
    shape.runs = 40;
    shape.step_at = 25;
    shape.keep_samples = keep_samples;
    int exact = 0, elsewhere = 0;
    const int seeds = 300;
    for (int seed = 0; seed < seeds; ++seed) {
      const auto at = flagged(detect_changes(history(1000 + seed, shape), {}));
      exact += std::count(at.begin(), at.end(), 25) == 1 ? 1 : 0;
      elsewhere += static_cast<int>(at.size()) - (std::count(at.begin(), at.end(), 25) == 1 ? 1 : 0);
    }
    std::cout << (keep_samples ? "samples" : "values only") << ": the 10 % step found at its run in " << exact << " of "
              << seeds << " histories; " << elsewhere << " other flags\n";
    EXPECT_GE(exact, seeds * 99 / 100) << (keep_samples ? "samples" : "values only");
    EXPECT_LE(elsewhere, seeds / 100) << (keep_samples ? "samples" : "values only");
  }
}

// Noise only: none flagged in a 50-run history, and the false-alarm rate over many seeds.
TEST(TrendDetection, NoiseOnlyRaisesNoAlarm) {
  history_shape shape;  // 50 runs, 20 samples of 3 % CV each, 0.5 % run-to-run
  EXPECT_TRUE(flagged(detect_changes(history(7, shape), {})).empty());
  for (const bool keep_samples : {true, false}) {
    shape.keep_samples = keep_samples;
    const int seeds = 2000;
    std::size_t alarms = 0, tested = 0, noisy_histories = 0;
    for (int seed = 0; seed < seeds; ++seed) {
      const auto verdicts = detect_changes(history(5000 + seed, shape), {});
      const auto at = flagged(verdicts);
      alarms += at.size();
      noisy_histories += at.empty() ? 0 : 1;
      for (const auto& v : verdicts) tested += v.flag == trend_flag::history ? 0 : 1;
    }
    const double per_run = static_cast<double>(alarms) / static_cast<double>(tested);
    const double per_history = static_cast<double>(noisy_histories) / seeds;
    std::cout << (keep_samples ? "samples" : "values only") << ": " << alarms << " false alarms in " << tested
              << " tested runs (" << per_run * 100 << " % per run); " << noisy_histories << " of " << seeds
              << " 50-run histories with any (" << per_history * 100 << " %)\n";
    RecordProperty(keep_samples ? "false_alarms_per_run_samples" : "false_alarms_per_run_values",
                   std::to_string(per_run));
    EXPECT_LE(per_history, 0.01) << "more than 1 % of noise-only histories raise an alarm";
  }
}

// Run-to-run scatter larger than the samples show (another boot, another NUMA placement) is
// learned from the earlier runs, not flagged run after run.
TEST(TrendDetection, RunToRunScatterRaisesTheBar) {
  history_shape shape;
  shape.run_cv = 0.03;  // each run 3 % off, while its own samples agree within 0.7 %
  std::size_t alarms = 0;
  for (int seed = 0; seed < 200; ++seed) alarms += flagged(detect_changes(history(9000 + seed, shape), {})).size();
  EXPECT_LE(alarms, 4u);
}

TEST(TrendDetection, ShortOrEmptyHistoriesAreNotJudged) {
  EXPECT_TRUE(detect_changes({}, {}).empty());
  history_shape shape;
  shape.runs = 5;
  for (const auto& v : detect_changes(history(3, shape), {})) EXPECT_EQ(v.flag, trend_flag::history);
  // A zero or non-finite value is listed, never judged as a change.
  auto points = history(4, history_shape{});
  points[30].value = 0;
  points[31].value = std::nan("");
  const auto verdicts = detect_changes(points, {});
  EXPECT_EQ(verdicts[30].flag, trend_flag::steady);
  EXPECT_EQ(verdicts[31].flag, trend_flag::steady);
}

}  // namespace
}  // namespace ironbench::results
