#include "results/cost.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::results {
namespace {

core::run_result serving_run(double output_tokens_per_s) {
  core::run_result run;
  core::case_result c;
  c.benchmark = "serve";
  c.params.set("max_concurrency", std::int64_t{64});
  c.metrics.push_back({"median_ttft_ms", 120, "ms", ""});
  c.metrics.push_back({"output_throughput", output_tokens_per_s, "tok/s", ""});
  run.cases.push_back(c);
  return run;
}

TEST(Cost, ParsesPrices) {
  EXPECT_DOUBLE_EQ(parse_price("2.50").usd_per_hour, 2.5);
  EXPECT_FALSE(parse_price("2.50").per_gpu);
  EXPECT_TRUE(parse_price("3/gpu").per_gpu);
  EXPECT_FALSE(parse_price("98.32/node").per_gpu);
  for (const char* bad : {"", "free", "-1", "0", "2.5/hour", "2,5"}) {
    EXPECT_THROW((void)parse_price(bad), usage_error) << bad;
  }
}

TEST(Cost, CostPerMillionTokensAndPerformancePerDollar) {
  // 8 GPUs at 2.50 USD per GPU-hour = 20 USD per hour; 5000 tokens/s = 18e6 tokens per hour:
  // 20 / 18 = 1.1111 USD per million tokens, 250 tokens/s per USD/hour.
  auto run = serving_run(5000);
  run.tags["gpus"] = "8";
  const auto rows = cost_rows({{"node", {run}}}, {parse_price("2.50/gpu")});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].metric, "output_throughput");
  EXPECT_DOUBLE_EQ(rows[0].node_usd_per_hour, 20);
  EXPECT_NEAR(*rows[0].usd_per_million_tokens, 20.0 / 18.0, 1e-12);
  EXPECT_DOUBLE_EQ(rows[0].value_per_usd_hour, 250);
}

TEST(Cost, OnePricePerSideAndClearErrors) {
  const auto a = serving_run(1000), b = serving_run(2000);
  const auto rows = cost_rows({{"a", {a}}, {"b", {b}}}, {parse_price("10"), parse_price("30")});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NEAR(*rows[0].usd_per_million_tokens, 10.0 / 3.6, 1e-12);
  EXPECT_NEAR(*rows[1].usd_per_million_tokens, 30.0 / 7.2, 1e-12);
  EXPECT_THROW((void)cost_rows({{"a", {a}}, {"b", {b}}}, {parse_price("1"), parse_price("2"), parse_price("3")}),
               usage_error);
  EXPECT_THROW((void)cost_rows({{"a", {a}}}, {parse_price("1/gpu")}), usage_error);  // GPU count unknown
  auto tagged = a;
  tagged.tags["gpus"] = "eight";
  EXPECT_THROW((void)cost_rows({{"a", {tagged}}}, {parse_price("1/gpu")}), usage_error);
}

TEST(Cost, GpuCountFromDevicesOrPublishedHardware) {
  core::run_result run;
  EXPECT_FALSE(gpu_count(run).has_value());
  run.host = {{"gpus", 8}};
  EXPECT_EQ(gpu_count(run), 8);
  core::device_info gpu;
  gpu.kind = core::device_kind::cuda;
  run.devices = {gpu, gpu};
  EXPECT_EQ(gpu_count(run), 2);
}

}  // namespace
}  // namespace ironbench::results
