#include "results/comparison.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "results/significance.hpp"

namespace ironbench::results {
namespace {

// Expected p values from scipy.stats.mannwhitneyu(a, b, alternative="two-sided") (1.16).
TEST(MannWhitneyU, ExactSmallSamples) {
  const std::vector<double> a1 = {1, 2, 3}, b1 = {4, 5, 6};
  auto t = mann_whitney_u(a1, b1);
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 0);
  EXPECT_NEAR(t.p_value, 0.1, 1e-12);

  const std::vector<double> a2 = {1, 2, 3, 4, 5}, b2 = {6, 7, 8, 9, 10};
  EXPECT_NEAR(mann_whitney_u(a2, b2).p_value, 0.007936507936507936, 1e-12);

  const std::vector<double> a3 = {1.1, 2.2, 3.3, 4.4, 7.7}, b3 = {2.5, 5.5, 6.6, 8.8, 9.9, 10.1};
  t = mann_whitney_u(a3, b3);
  EXPECT_DOUBLE_EQ(t.u, 5);
  EXPECT_NEAR(t.p_value, 0.08225108225108226, 1e-12);
  EXPECT_NEAR(mann_whitney_u(b3, a3).p_value, t.p_value, 1e-12);  // symmetric
}

TEST(MannWhitneyU, NormalApproximationWithTies) {
  const std::vector<double> a = {1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
  const std::vector<double> b = {3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 31, 32};
  const auto t = mann_whitney_u(a, b);
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 184.5);
  EXPECT_NEAR(t.p_value, 0.054763127210306885, 1e-9);
}

TEST(MannWhitneyU, DegenerateInputs) {
  const std::vector<double> same(30, 2.0), empty;
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, empty).p_value, 1.0);
}

TEST(NormalQuantile, KnownValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-10);
  EXPECT_THROW((void)normal_quantile(1.0), std::invalid_argument);
}

TEST(BootstrapMedianRatio, ContainsTheTrueRatio) {
  std::mt19937 random(7);
  std::lognormal_distribution<double> noise(0.0, 0.05);
  std::vector<double> a, b;
  for (int i = 0; i < 400; ++i) a.push_back(1.0 * noise(random));
  for (int i = 0; i < 400; ++i) b.push_back(0.8 * noise(random));
  const auto r = bootstrap_median_ratio(a, b);
  EXPECT_NEAR(r.ratio, 1.25, 0.02);
  EXPECT_LT(r.low, 1.25);
  EXPECT_GT(r.high, 1.25);
  EXPECT_LT(r.high - r.low, 0.05);
  EXPECT_LE(r.low, r.ratio);
  EXPECT_GE(r.high, r.ratio);
  const auto again = bootstrap_median_ratio(a, b);  // fixed seed: reproducible
  EXPECT_DOUBLE_EQ(again.low, r.low);
}

// A run with one case per entry: {benchmark, params, metric value, time samples}.
struct case_spec {
  std::string benchmark;
  std::vector<std::pair<std::string, std::string>> params;
  std::string metric;
  double value;
  std::vector<double> samples;
  std::string device = "cuda:0";
  std::string unit = "TFLOP/s";
};

core::run_result run_of(const std::vector<case_spec>& specs) {
  core::run_result run;
  for (const auto& s : specs) {
    core::case_result c;
    c.benchmark = s.benchmark;
    c.device = s.device;
    for (const auto& [name, value] : s.params) c.params.set(name, value);
    c.metrics.push_back({s.metric, s.value, s.unit, ""});
    if (!s.samples.empty()) {
      core::measurement m;
      m.samples_s = s.samples;
      c.timing = m;
    }
    run.cases.push_back(c);
  }
  return run;
}

std::vector<double> times(double center, int n, unsigned seed) {
  std::mt19937 random(seed);
  std::lognormal_distribution<double> noise(0.0, 0.02);
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(center * noise(random));
  return t;
}

TEST(CompareSides, FasterSlowerSameAndUntested) {
  const auto base = run_of({
      {"gemm", {{"dtype", "bf16"}, {"M", "8192"}}, "tflops", 100, times(1.0, 50, 1)},
      {"gemm", {{"dtype", "fp16"}, {"M", "8192"}}, "tflops", 100, times(1.0, 50, 2)},
      {"gemm", {{"dtype", "fp8"}, {"M", "8192"}}, "tflops", 100, times(1.0, 50, 3)},
      {"serve", {{"max_concurrency", "4"}}, "output_throughput", 1000, {}, "http://a", ""},
      {"stream", {{"size", "1"}}, "bandwidth", 10, {}, "cuda:0", "GB/s"},
  });
  const auto other = run_of({
      {"gemm", {{"dtype", "bf16"}, {"M", "8192"}}, "tflops", 125, times(0.8, 50, 4)},
      {"gemm", {{"dtype", "fp16"}, {"M", "8192"}}, "tflops", 80, times(1.25, 50, 5)},
      {"gemm", {{"dtype", "fp8"}, {"M", "8192"}}, "tflops", 100.5, times(1.0, 50, 6)},
      {"serve", {{"max_concurrency", "4"}}, "output_throughput", 1500, {}, "http://b", ""},
      {"copy", {{"size", "1"}}, "bandwidth", 10, {}, "cuda:0", "GB/s"},
  });
  const auto c = compare_sides({{"A", {base}}, {"B", {other}}}, {});
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[0].key, "dtype=bf16 M=8192");
  EXPECT_EQ(c.cases[0].verdicts[1], verdict::faster);
  EXPECT_NEAR(c.cases[0].speedup[1], 1.25, 1e-12);
  EXPECT_NEAR(c.cases[0].percent[1], 25, 1e-9);
  ASSERT_TRUE(c.cases[0].p_value[1].has_value());
  EXPECT_LT(*c.cases[0].p_value[1], 1e-6);
  EXPECT_LT(*c.cases[0].speedup_low[1], 1.25 * 1.02);
  EXPECT_GT(*c.cases[0].speedup_high[1], 1.25 / 1.02);
  EXPECT_EQ(c.cases[1].verdicts[1], verdict::slower);
  EXPECT_EQ(c.cases[2].verdicts[1], verdict::same);  // same distribution
  EXPECT_GT(*c.cases[2].p_value[1], 0.05);
  EXPECT_EQ(c.cases[3].verdicts[1], verdict::faster);  // no samples: by the ratio, untested
  EXPECT_FALSE(c.cases[3].p_value[1].has_value());
  EXPECT_EQ(c.cases[3].metric, "output_throughput");

  ASSERT_EQ(c.benchmarks.size(), 2u);
  EXPECT_EQ(c.benchmarks[0].benchmark, "gemm");
  EXPECT_NEAR(c.benchmarks[0].geomean_speedup[1], std::cbrt(1.25 * 0.8 * 1.005), 1e-12);
  EXPECT_EQ(c.benchmarks[0].faster[1], 1u);
  EXPECT_EQ(c.benchmarks[0].slower[1], 1u);
  EXPECT_EQ(c.benchmarks[0].same[1], 1u);
  ASSERT_EQ(c.only_in[0].size(), 1u);
  EXPECT_EQ(c.only_in[0][0], "stream size=1");
  ASSERT_EQ(c.only_in[1].size(), 1u);
  EXPECT_EQ(c.only_in[1][0], "copy size=1");
}

TEST(CompareSides, AnUnstableCaseOnEitherSideGetsNoVerdict) {
  auto base = run_of({{"gemm", {{"M", "1"}}, "tflops", 100, times(1.0, 50, 1)},
                      {"gemm", {{"M", "2"}}, "tflops", 100, times(1.0, 50, 2)}});
  auto other = run_of({{"gemm", {{"M", "1"}}, "tflops", 125, times(0.8, 50, 3)},
                       {"gemm", {{"M", "2"}}, "tflops", 125, times(0.8, 50, 4)}});
  other.cases[1].unstable = core::instability{2.0, 0.9, 0.5, 50, std::nullopt};
  auto c = compare_sides({{"A", {base}}, {"B", {other}}}, {});
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].verdicts[1], verdict::faster);
  EXPECT_EQ(c.cases[1].verdicts[1], verdict::unstable);
  EXPECT_NEAR(c.cases[1].speedup[1], 1.25, 1e-12);  // the numbers are still shown
  EXPECT_EQ(c.cases[1].unstable[1], "robust CV 90 % (CV 200 %) over 50 samples (unstable above 50 %)");
  EXPECT_EQ(c.benchmarks[0].faster[1], 1u);
  EXPECT_EQ(c.benchmarks[0].unstable[1], 1u);

  base.cases[0].unstable = core::instability{0.9, 0.6, 0.5, 50, std::nullopt};  // the baseline's side too
  c = compare_sides({{"A", {base}}, {"B", {other}}}, {});
  EXPECT_EQ(c.cases[0].verdicts[1], verdict::unstable);
}

TEST(CompareSides, LowerIsBetterMetricsInvertTheSpeedup) {
  const auto a = run_of({{"tp_infer", {{"batch", "64"}}, "latency_ms", 10, {}, "cpu", "ms"}});
  const auto b = run_of({{"tp_infer", {{"batch", "64"}}, "latency_ms", 5, {}, "cpu", "ms"}});
  const auto c = compare_sides({{"A", {a}}, {"B", {b}}}, {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_FALSE(c.cases[0].higher_is_better);
  EXPECT_DOUBLE_EQ(c.cases[0].speedup[1], 2.0);
  EXPECT_DOUBLE_EQ(c.cases[0].percent[1], -50.0);
  EXPECT_EQ(c.cases[0].verdicts[1], verdict::faster);
  EXPECT_TRUE(metric_higher_is_better("tokens_per_s", ""));
  EXPECT_FALSE(metric_higher_is_better("median_ttft_ms", ""));
  EXPECT_FALSE(metric_higher_is_better("time", "us"));
}

TEST(CompareSides, AlignsOnSharedParametersAndKeepsTheBest) {
  // A's GPU gemm has a provider axis; a published baseline has none: align on dtype and M,
  // keep A's best provider.
  const auto a = run_of({{"gemm", {{"provider", "cublaslt"}, {"dtype", "bf16"}, {"M", "4096"}}, "tflops", 700, {}},
                         {"gemm", {{"provider", "cublas"}, {"dtype", "bf16"}, {"M", "4096"}}, "tflops", 650, {}}});
  const auto ref = run_of({{"gemm", {{"dtype", "bf16"}, {"M", "4096"}}, "tflops", 775, {}, "MI350X"}});
  const auto c = compare_sides({{"mine", {a}}, {"ref", {ref}}}, {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].key, "dtype=bf16 M=4096");
  EXPECT_DOUBLE_EQ(c.cases[0].values[0]->value, 700);
  EXPECT_EQ(c.cases[0].values[0]->cases, 2u);
  EXPECT_NEAR(c.cases[0].speedup[1], 775.0 / 700.0, 1e-12);

  // A provider on both sides: collapsed by default (the best library of each node) ...
  const auto amd = run_of({{"gemm", {{"provider", "hipblaslt"}, {"dtype", "bf16"}, {"M", "4096"}}, "tflops", 800, {}}});
  EXPECT_EQ(compare_sides({{"mine", {a}}, {"amd", {amd}}}, {}).cases.size(), 1u);
  // ... and kept apart when asked: then no library is on both sides.
  comparison_options by_provider;
  by_provider.collapsed_params.clear();
  const auto apart = compare_sides({{"mine", {a}}, {"amd", {amd}}}, by_provider);
  EXPECT_TRUE(apart.cases.empty());
  EXPECT_EQ(apart.only_in[0].size(), 2u);

  comparison_options ignore_m;
  ignore_m.ignored_params = {"M"};
  EXPECT_EQ(compare_sides({{"mine", {a}}, {"ref", {ref}}}, ignore_m).cases.at(0).key, "dtype=bf16");
}

// Two serving sweeps run with different --num-prompts compare point by point: the prompt count
// is no part of a serving case. Another benchmark's parameter of that name still is.
TEST(CompareSides, ServingPointsAlignWhateverTheirPromptCount) {
  const auto sweep = [](const std::string& prompts, double scale) {
    std::vector<case_spec> specs;
    for (const int c : {1, 2, 4}) {
      specs.push_back({"serve",
                       {{"max_concurrency", std::to_string(c)}, {"request_rate", "inf"}, {"num_prompts", prompts}},
                       "output_throughput",
                       100 * c * scale,
                       {},
                       "http://a",
                       "tok/s"});
    }
    specs.push_back({"other", {{"num_prompts", prompts}}, "throughput", 10 * scale, {}, "x", "tok/s"});
    return run_of(specs);
  };
  const auto c = compare_sides({{"A", {sweep("100", 1)}}, {"B", {sweep("500", 1.5)}}}, {});
  ASSERT_EQ(c.cases.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c.cases[i].benchmark, "serve");
    EXPECT_EQ(c.cases[i].key, fmt::format("max_concurrency={} request_rate=inf", 1 << i));
    EXPECT_NEAR(c.cases[i].speedup[1], 1.5, 1e-12);
  }
  EXPECT_EQ(c.only_in[0], std::vector<std::string>{"other num_prompts=100"});
  EXPECT_EQ(c.only_in[1], std::vector<std::string>{"other num_prompts=500"});
}

TEST(CompareSides, PoolsRunsOfOneSideAndSplitsByDevice) {
  const auto run1 = run_of({{"stream", {{"size", "8"}}, "bandwidth", 10, times(1.0, 20, 8), "cuda:0", "GB/s"},
                            {"stream", {{"size", "8"}}, "bandwidth", 30, times(1.0, 20, 9), "cuda:1", "GB/s"}});
  const auto run2 = run_of({{"stream", {{"size", "8"}}, "bandwidth", 20, times(1.0, 20, 10), "cuda:0", "GB/s"}});
  const auto other = run_of({{"stream", {{"size", "8"}}, "bandwidth", 20, times(1.0, 20, 11), "cuda:0", "GB/s"},
                             {"stream", {{"size", "8"}}, "bandwidth", 15, times(1.0, 20, 12), "cuda:1", "GB/s"}});
  // Pooled: cuda:0 is the median of 10 and 20 (15) over 40 samples; cuda:1 (30) is the best.
  auto c = compare_sides({{"two runs", {run1, run2}}, {"other", {other}}}, {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(c.cases[0].values[0]->value, 30);
  EXPECT_DOUBLE_EQ(c.cases[0].values[1]->value, 20);

  comparison_options per_device;
  per_device.per_device = true;
  c = compare_sides({{"two runs", {run1, run2}}, {"other", {other}}}, per_device);
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(c.cases[0].values[0]->value, 15);
  EXPECT_EQ(c.cases[0].values[0]->samples, 40u);
  EXPECT_EQ(c.cases[0].key, "size=8 device=cuda:0");
}

TEST(CompareSides, RejectsTooFewSidesAndEmptySides) {
  const auto a = run_of({{"gemm", {{"M", "1"}}, "tflops", 1, {}}});
  EXPECT_THROW((void)compare_sides({{"A", {a}}}, {}), usage_error);
  EXPECT_THROW((void)compare_sides({{"A", {a}}, {"B", {}}}, {}), usage_error);
}

}  // namespace
}  // namespace ironbench::results
