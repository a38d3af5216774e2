// The trend detector on synthetic histories, each verdict both ways at the defaults users get:
// a step, a drop after a spike or a dip, a slow drift and a drop after one fast outlier are
// flagged (for a metric where higher is better and for one where lower is), while noise, a
// single spike or dip, bimodal noise and an improvement raise no regression. Rates over many
// seeds are printed; bench/trend_detection_rates.py measures them over more shapes.
#include "results/trend_detection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <random>

#include "results/trend_history.hpp"

namespace ironbench::results {
namespace {

// ---- values only (imported runs, serving sweeps), Gaussian noise -------------------------------

/// How good run i is: 1 at the baseline, 0.8 for 20 % worse, 1.3 for 30 % better.
using shape = std::function<double(int)>;

/// The metric's values: higher is better (value = goodness x noise) or lower is better (value =
/// noise / goodness: a regression is a rise).
std::vector<trend_point> history(std::uint64_t seed, int runs, double cv, const shape& goodness,
                                 bool higher_is_better) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<trend_point> points;
  for (int i = 0; i < runs; ++i) {
    const double n = 1 + noise(random);
    trend_point p;
    p.value = 100 * (higher_is_better ? goodness(i) * n : n / goodness(i));
    points.push_back(std::move(p));
  }
  return points;
}

trend_options direction(bool higher_is_better) {
  trend_options options;
  options.higher_is_better = higher_is_better;
  return options;
}

std::vector<std::size_t> with_flag(const std::vector<trend_verdict>& verdicts, trend_flag flag) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (verdicts[i].flag == flag) at.push_back(i);
  }
  return at;
}

std::string name(bool higher_is_better) { return higher_is_better ? "higher is better" : "lower is better"; }

shape step_at(int run, double goodness) {
  return [=](int i) { return i >= run ? goodness : 1.0; };
}

TEST(TrendDetection, TwentyPercentStepIsFlaggedTheNightItLandsAndConfirmedAtItsRun) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    const auto points = history(1, 40, 0.02, step_at(25, 0.8), higher);
    // The night it lands: the newest run is flagged at once, not yet confirmed.
    const std::vector<trend_point> that_night(points.begin(), points.begin() + 26);
    const auto first = detect_changes(that_night, direction(higher));
    EXPECT_EQ(with_flag(first, trend_flag::regression), std::vector<std::size_t>{25});
    EXPECT_FALSE(first[25].confirmed);
    EXPECT_EQ(first[25].detected_at, 25u);
    EXPECT_EQ(first[25].rule, trend_rule::step);
    // The whole history: one regression, at run 25, confirmed; the runs after it judged at once
    // against the new level (none building history, none flagged).
    const auto verdicts = detect_changes(points, direction(higher));
    EXPECT_EQ(with_flag(verdicts, trend_flag::regression), std::vector<std::size_t>{25});
    EXPECT_TRUE(with_flag(verdicts, trend_flag::improvement).empty());
    EXPECT_TRUE(with_flag(verdicts, trend_flag::outlier).empty());
    const auto& v = verdicts[25];
    EXPECT_TRUE(v.confirmed);
    EXPECT_EQ(v.detected_at, 25u);
    EXPECT_NEAR(v.change, higher ? -0.20 : 0.25, 0.05);
    for (std::size_t i = 26; i < verdicts.size(); ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::steady) << i;
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::history) << i;
  }
}

// The case: one fast run (+50 %), then the GEMM drops by 46 %. The fast run is an
// outlier; the drop is judged against the level before it and flagged at its run.
TEST(TrendDetection, FortySixPercentDropAfterOneFastOutlierIsFlagged) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    int flagged_at_its_run = 0;
    for (int seed = 0; seed < 50; ++seed) {
      const auto points = history(
          100 + seed, 40, 0.02, [](int i) { return i == 20   ? 1.5
                                                   : i >= 21 ? 0.54
                                                             : 1.0; }, higher);
      const auto verdicts = detect_changes(points, direction(higher));
      EXPECT_EQ(verdicts[20].flag, trend_flag::outlier) << seed;
      const auto at = with_flag(verdicts, trend_flag::regression);
      flagged_at_its_run += at == std::vector<std::size_t>{21} ? 1 : 0;
    }
    EXPECT_EQ(flagged_at_its_run, 50);
  }
}

// A spike or a dip, then 2 or 3 runs back at the level, then a 30 % drop: the drop is judged (the
// spike neither started a level nor left runs unjudged) and flagged at its run.
TEST(TrendDetection, ThirtyPercentDropThreeOrFourRunsAfterASpikeOrADipIsFlagged) {
  for (const bool higher : {true, false}) {
    for (const double off : {1.3, 0.7}) {
      for (const int gap : {3, 4}) {
        SCOPED_TRACE(name(higher) + (off > 1 ? ", spike" : ", dip") + ", drop " + std::to_string(gap) + " runs after");
        int exact = 0, outliers = 0;
        for (int seed = 0; seed < 50; ++seed) {
          const auto points = history(
              200 + seed, 40, 0.02, [=](int i) { return i == 20         ? off
                                                        : i >= 20 + gap ? 0.7
                                                                        : 1.0; }, higher);
          const auto verdicts = detect_changes(points, direction(higher));
          // The spike is an outlier (or, a 1/1.3 = -23 % latency early in a history, inside the band)
          EXPECT_TRUE(verdicts[20].flag == trend_flag::outlier || verdicts[20].flag == trend_flag::steady) << seed;
          outliers += verdicts[20].flag == trend_flag::outlier ? 1 : 0;
          EXPECT_NE(verdicts[21].flag, trend_flag::history) << "the run after a spike is judged";
          EXPECT_NEAR(verdicts[21].reference, 100, 3) << "against the level before the spike";
          exact += with_flag(verdicts, trend_flag::regression) == std::vector<std::size_t>{20u + gap} ? 1 : 0;
        }
        EXPECT_EQ(exact, 50);
        EXPECT_GE(outliers, 40);
      }
    }
  }
}

// -1 % a run, -29 % in all over 30 runs: too slow for the band of any one run; the change-point
// rule finds it as a change between segments whose medians differ by more than 2 %.
TEST(TrendDetection, SlowDriftOfOnePercentARunIsFlagged) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    int found = 0, by_change_point = 0;
    std::size_t first_night = 0;
    const int seeds = 100;
    for (int seed = 0; seed < seeds; ++seed) {
      const auto points = history(
          300 + seed, 30, 0.02, [](int i) { return 1 - 0.01 * i; }, higher);
      const auto verdicts = detect_changes(points, direction(higher));
      const auto at = with_flag(verdicts, trend_flag::regression);
      if (at.empty()) continue;
      ++found;
      const auto& v = verdicts[at.front()];
      by_change_point += v.rule == trend_rule::change_point ? 1 : 0;
      first_night += v.detected_at;
      if (v.rule == trend_rule::change_point) {
        EXPECT_GE(std::abs(v.level / v.reference - 1), 0.02);
        ASSERT_TRUE(v.p_value.has_value());
        EXPECT_LE(*v.p_value, 0.0005);
      }
    }
    std::cout << name(higher) << ": drift flagged in " << found << " of " << seeds << " histories (" << by_change_point
              << " by the change-point rule), first on night " << first_night / std::max(found, 1) << " on average\n";
    EXPECT_EQ(found, seeds);
    EXPECT_GE(by_change_point, seeds * 9 / 10);
  }
}

// Noise only, 2 % CV, 50 runs: no regression anywhere in the history, over many seeds.
TEST(TrendDetection, NoiseRaisesNoRegression) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    const int seeds = 1000;
    int histories = 0;
    for (int seed = 0; seed < seeds; ++seed) {
      const auto verdicts = detect_changes(history(5000 + seed, 50, 0.02, step_at(-1, 1), higher), direction(higher));
      histories += with_flag(verdicts, trend_flag::regression).empty() ? 0 : 1;
    }
    std::cout << name(higher) << ": " << histories << " of " << seeds
              << " noise-only histories (50 runs, 2 % CV) with a regression\n";
    EXPECT_LE(histories, seeds / 100);
  }
  EXPECT_TRUE(
      with_flag(detect_changes(history(7, 50, 0.02, step_at(-1, 1), true), {}), trend_flag::regression).empty());
}

// A single spike or dip of 30 %: an outlier, never a regression; the next run is judged against
// the level before it.
TEST(TrendDetection, SingleSpikeOrDipIsAnOutlierNotARegression) {
  for (const bool higher : {true, false}) {
    for (const double off : {1.3, 0.7}) {
      SCOPED_TRACE(name(higher) + (off > 1 ? ", spike" : ", dip"));
      for (int seed = 0; seed < 50; ++seed) {
        const auto points = history(
            400 + seed, 40, 0.02, [=](int i) { return i == 25 ? off : 1.0; }, higher);
        const auto verdicts = detect_changes(points, direction(higher));
        EXPECT_EQ(verdicts[25].flag, trend_flag::outlier) << seed;
        EXPECT_TRUE(with_flag(verdicts, trend_flag::regression).empty()) << seed;
        EXPECT_TRUE(with_flag(verdicts, trend_flag::improvement).empty()) << seed;
        EXPECT_EQ(verdicts[26].flag, trend_flag::steady) << seed;
        EXPECT_NEAR(verdicts[26].reference, 100, 3) << seed;
      }
    }
  }
}

// Two modes 5 % apart, each run in either with even odds (two clock states, two NUMA
// placements), 1 % noise within a mode: over many seeds, (nearly) no regression.
TEST(TrendDetection, BimodalNoiseRaisesNoRegression) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    const int seeds = 500;
    int histories = 0;
    for (int seed = 0; seed < seeds; ++seed) {
      std::mt19937_64 random(9000 + seed);
      std::bernoulli_distribution low_mode(0.5);
      std::vector<double> modes;
      for (int i = 0; i < 50; ++i) modes.push_back(low_mode(random) ? 0.95 : 1.0);
      const auto points = history(
          7000 + seed, 50, 0.01, [&](int i) { return modes[i]; }, higher);
      histories += with_flag(detect_changes(points, direction(higher)), trend_flag::regression).empty() ? 0 : 1;
    }
    std::cout << name(higher) << ": " << histories << " of " << seeds
              << " bimodal histories (modes 5 % apart, even odds) with a regression\n";
    EXPECT_LE(histories, seeds * 2 / 100);
  }
}

// A 20 % step for the better and a slow rise: improvements, never regressions.
TEST(TrendDetection, AnImprovementIsNotARegression) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    for (int seed = 0; seed < 20; ++seed) {
      const auto step = detect_changes(history(500 + seed, 40, 0.02, step_at(25, 1.2), higher), direction(higher));
      EXPECT_TRUE(with_flag(step, trend_flag::regression).empty()) << seed;
      const auto better = with_flag(step, trend_flag::improvement);  // -16.7 % of a latency: at the band's edge
      ASSERT_EQ(better.size(), 1u) << seed;
      EXPECT_GE(better.front(), 25u) << seed;
      EXPECT_LE(step[better.front()].detected_at, 35u) << seed;
      const auto drift = detect_changes(history(
                                            600 + seed, 30, 0.02, [](int i) { return 1 + 0.01 * i; }, higher),
                                        direction(higher));
      EXPECT_TRUE(with_flag(drift, trend_flag::regression).empty()) << seed;
      EXPECT_FALSE(with_flag(drift, trend_flag::improvement).empty()) << seed;
    }
  }
}

// Two nights off and back (a transient): outliers, no regression kept in the history.
TEST(TrendDetection, AFewNightsOffAndBackAreOutliers) {
  for (const bool higher : {true, false}) {
    SCOPED_TRACE(name(higher));
    for (const int nights : {2, 3}) {
      const auto points = history(
          700 + nights, 40, 0.02, [=](int i) { return i >= 20 && i < 20 + nights ? 0.7 : 1.0; }, higher);
      const auto verdicts = detect_changes(points, direction(higher));
      EXPECT_TRUE(with_flag(verdicts, trend_flag::regression).empty()) << nights;
      EXPECT_TRUE(with_flag(verdicts, trend_flag::improvement).empty()) << nights;
      for (int i = 20; i < 20 + nights; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::outlier) << nights << " " << i;
    }
  }
}

// The gate `trend` exits with: a regression counts on the night it was detected.
TEST(TrendDetection, TheGateFailsOnTheNightARegressionIsDetected) {
  const auto series_of = [](const std::vector<trend_point>& points) {
    trend_series s;
    const auto verdicts = detect_changes(points, {});
    for (std::size_t i = 0; i < points.size(); ++i) {
      trend_entry e;
      e.run = static_cast<std::int64_t>(i + 1);
      e.value = points[i].value;
      e.verdict = verdicts[i];
      s.entries.push_back(std::move(e));
    }
    return s;
  };
  const auto step = history(1, 40, 0.02, step_at(25, 0.8), true);
  for (std::size_t nights = 20; nights <= step.size(); ++nights) {
    const auto s = series_of({step.begin(), step.begin() + static_cast<std::ptrdiff_t>(nights)});
    EXPECT_EQ(has_recent_regression(s, 1), nights == 26) << nights;
    EXPECT_EQ(has_recent_regression(s, 0), nights >= 26) << nights;
  }
  // A dip fails its own night (it cannot be told from a step yet), not the next.
  const auto dip = history(
      2, 40, 0.02, [](int i) { return i == 25 ? 0.7 : 1.0; }, true);
  for (std::size_t nights = 20; nights <= dip.size(); ++nights) {
    const auto s = series_of({dip.begin(), dip.begin() + static_cast<std::ptrdiff_t>(nights)});
    EXPECT_EQ(has_recent_regression(s, 1), nights == 26) << nights;
    EXPECT_EQ(has_recent_regression(s, 0), nights == 26) << nights;
  }
  // A drift fails the night the change point is found, though it began earlier; never on noise.
  const auto drift = history(
      3, 30, 0.02, [](int i) { return 1 - 0.01 * i; }, true);
  int failing_nights = 0;
  for (std::size_t nights = 6; nights <= drift.size(); ++nights) {
    const auto s = series_of({drift.begin(), drift.begin() + static_cast<std::ptrdiff_t>(nights)});
    failing_nights += has_recent_regression(s, 1) ? 1 : 0;
  }
  EXPECT_GE(failing_nights, 1);
  const auto noise = history(4, 50, 0.02, step_at(-1, 1), true);
  for (std::size_t nights = 6; nights <= noise.size(); ++nights) {
    EXPECT_FALSE(
        has_recent_regression(series_of({noise.begin(), noise.begin() + static_cast<std::ptrdiff_t>(nights)}), 1))
        << nights;
  }
}

TEST(TrendDetection, VerdictsAreReproducible) {
  const auto points = history(
      11, 60, 0.02, [](int i) { return i < 20 ? 1.0 : 1 - 0.005 * (i - 20); }, true);
  const auto a = detect_changes(points, {});
  const auto b = detect_changes(points, {});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].flag, b[i].flag) << i;
    EXPECT_EQ(a[i].p_value, b[i].p_value) << i;
  }
}

// ---- runs with timing samples ---------------------------------------------------------------------

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

struct sampled_shape {
  int runs = 50;
  int step_at = -1;    ///< the first run at the new level (-1: none)
  double step = 0.10;  ///< the value drops by this share from step_at on
  double sample_cv = 0.03;
  double run_cv = 0.005;
  int samples = 20;
  bool keep_samples = true;  ///< false: values only, as imported runs have
};

std::vector<trend_point> sampled_history(std::uint64_t seed, const sampled_shape& shape) {
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

std::vector<std::size_t> changes(const std::vector<trend_verdict>& verdicts) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (verdicts[i].flag == trend_flag::regression || verdicts[i].flag == trend_flag::improvement) at.push_back(i);
  }
  return at;
}

TEST(TrendDetection, TenPercentStepWithSamplesCarriesTheUTestAndTheInterval) {
  sampled_shape shape;
  shape.runs = 30;
  shape.step_at = 20;
  const auto points = sampled_history(1, shape);
  const auto verdicts = detect_changes(points, {});
  ASSERT_EQ(changes(verdicts), std::vector<std::size_t>{20});
  const auto& v = verdicts[20];
  EXPECT_EQ(v.flag, trend_flag::regression);
  EXPECT_EQ(v.rule, trend_rule::step);
  EXPECT_NEAR(v.change, -0.10, 0.02);
  ASSERT_TRUE(v.p_value.has_value());
  EXPECT_LT(*v.p_value, 1e-6);
  ASSERT_TRUE(v.speedup_high.has_value());
  EXPECT_LT(*v.speedup_high, 1);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::history) << i;
  for (std::size_t i = 21; i < 30; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::steady) << i;

  // Lower is better (a latency): the same values are an improvement.
  trend_options lower;
  lower.higher_is_better = false;
  const auto as_latency = detect_changes(points, lower);
  EXPECT_EQ(as_latency[20].flag, trend_flag::improvement);
  EXPECT_TRUE(with_flag(as_latency, trend_flag::regression).empty());
}

// Over many seeds: the step is found at its run in (nearly) every history, with samples and with
// values only, and nothing else is flagged.
TEST(TrendDetection, TheStepIsFoundAtItsRunOverManySeeds) {
  for (const bool keep_samples : {true, false}) {
    sampled_shape shape;
    shape.runs = 40;
    shape.step_at = 25;
    shape.keep_samples = keep_samples;
    int exact = 0, elsewhere = 0;
    const int seeds = keep_samples ? 100 : 300;  // with samples, each flag costs three bootstrap intervals
    for (int seed = 0; seed < seeds; ++seed) {
      const auto at = changes(detect_changes(sampled_history(1000 + seed, shape), {}));
      const bool found = std::count(at.begin(), at.end(), 25) == 1;
      exact += found ? 1 : 0;
      elsewhere += static_cast<int>(at.size()) - (found ? 1 : 0);
    }
    std::cout << (keep_samples ? "samples" : "values only") << ": the 10 % step found at its run in " << exact << " of "
              << seeds << " histories; " << elsewhere << " other flags\n";
    EXPECT_GE(exact, seeds * 99 / 100) << (keep_samples ? "samples" : "values only");
    EXPECT_LE(elsewhere, seeds / 100) << (keep_samples ? "samples" : "values only");
  }
}

// Noise only with samples: the false-alarm rate over many seeds.
TEST(TrendDetection, NoiseWithSamplesRaisesNoAlarm) {
  sampled_shape shape;  // 50 runs, 20 samples of 3 % CV each, 0.5 % run-to-run
  for (const bool keep_samples : {true, false}) {
    shape.keep_samples = keep_samples;
    const int seeds = 1000;
    std::size_t alarms = 0, noisy_histories = 0;
    for (int seed = 0; seed < seeds; ++seed) {
      const auto at = changes(detect_changes(sampled_history(5000 + seed, shape), {}));
      alarms += at.size();
      noisy_histories += at.empty() ? 0 : 1;
    }
    std::cout << (keep_samples ? "samples" : "values only") << ": " << alarms << " changes flagged in " << seeds
              << " noise-only 50-run histories; " << noisy_histories << " histories with any\n";
    EXPECT_LE(noisy_histories, static_cast<std::size_t>(seeds / 100));
  }
}

// Run-to-run scatter larger than the samples show (another boot, another NUMA placement) is
// learned from the earlier runs, not flagged run after run.
TEST(TrendDetection, RunToRunScatterRaisesTheBar) {
  sampled_shape shape;
  shape.run_cv = 0.03;  // each run 3 % off, while its own samples agree within 0.7 %
  std::size_t alarms = 0;
  for (int seed = 0; seed < 200; ++seed)
    alarms += changes(detect_changes(sampled_history(9000 + seed, shape), {})).size();
  EXPECT_LE(alarms, 4u);
}

TEST(TrendDetection, ShortOrEmptyHistoriesAreNotJudged) {
  EXPECT_TRUE(detect_changes({}, {}).empty());
  sampled_shape shape;
  shape.runs = 5;
  for (const auto& v : detect_changes(sampled_history(3, shape), {})) EXPECT_EQ(v.flag, trend_flag::history);
  // A zero or non-finite value is listed, never judged as a change.
  auto points = sampled_history(4, sampled_shape{});
  points[30].value = 0;
  points[31].value = std::nan("");
  const auto verdicts = detect_changes(points, {});
  EXPECT_EQ(verdicts[30].flag, trend_flag::steady);
  EXPECT_EQ(verdicts[31].flag, trend_flag::steady);
  EXPECT_TRUE(changes(verdicts).empty());
}

// A level of 0 has no ratio: a count of failed requests or wrong elements that goes from 0 to
// 1000 is a change from zero (issue 44: trend said nothing), a regression when lower is better and
// an improvement when higher is; zeros before too short a history, or a zero inside a level, are
// not.
TEST(TrendDetection, AChangeFromALevelOfZeroIsFlaggedWithItsAbsoluteChange) {
  for (const bool higher_is_better : {false, true}) {
    std::vector<trend_point> points(12);
    for (std::size_t i = 8; i < points.size(); ++i) points[i].value = 1000;
    points[3].value = std::nan("");  // a run without a value does not break the level of 0
    const auto verdicts = detect_changes(points, direction(higher_is_better));
    const auto& v = verdicts[8];
    EXPECT_EQ(v.flag, higher_is_better ? trend_flag::improvement : trend_flag::regression) << name(higher_is_better);
    EXPECT_EQ(v.rule, trend_rule::from_zero);
    EXPECT_DOUBLE_EQ(v.absolute_change, 1000);
    EXPECT_DOUBLE_EQ(v.reference, 0);
    EXPECT_DOUBLE_EQ(v.change, 0) << "no ratio to 0";
    EXPECT_EQ(v.detected_at, 8u);
    EXPECT_EQ(v.reference_runs, 7u);
    EXPECT_EQ(changes(verdicts).size(), 1u) << "the runs at 1000 after it are its level";
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(verdicts[i].flag, trend_flag::history) << i;
    EXPECT_EQ(verdicts[7].flag, trend_flag::steady) << "a 0 at the level of 0";
  }
  // Too few zeros before the first value: history, as any start.
  std::vector<trend_point> short_zeros(8);
  for (std::size_t i = 3; i < short_zeros.size(); ++i) short_zeros[i].value = 1000;
  EXPECT_TRUE(changes(detect_changes(short_zeros, {})).empty());
  // One 0 inside a level of 1000 is listed; the level goes on.
  std::vector<trend_point> dip(20);
  for (auto& p : dip) p.value = 1000;
  dip[10].value = 0;
  EXPECT_TRUE(changes(detect_changes(dip, {})).empty());
}

}  // namespace
}  // namespace ironbench::results
