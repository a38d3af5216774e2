#include "core/sweep.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

std::vector<axis> gemm_like_axes() {
  auto m = integer_axis("M", {1, 2, 3}, "");
  auto n = integer_axis("N", {4, 5, 6}, "");
  auto k = integer_axis("K", {7, 8, 9}, "");
  for (auto* a : {&m, &n, &k}) a->zip_group = "shape";
  return {string_axis("dtype", {"fp64", "fp32"}, "", {"fp64", "fp32", "bf16"}), m, n, k};
}

std::vector<axis_override> overrides(std::initializer_list<const char*> texts) {
  std::vector<axis_override> list;
  for (const char* t : texts) list.push_back(parse_axis_override(t));
  return list;
}

TEST(Sweep, CartesianProductFirstAxisSlowest) {
  const auto cases = expand_sweep({integer_axis("a", {1, 2}, ""), string_axis("b", {"x", "y", "z"}, "")});
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[0].label(), "a=1 b=x");
  EXPECT_EQ(cases[1].label(), "a=1 b=y");
  EXPECT_EQ(cases[3].label(), "a=2 b=x");
  EXPECT_EQ(cases[5].label(), "a=2 b=z");
}

TEST(Sweep, ZipGroupAdvancesTogether) {
  const auto cases = expand_sweep(gemm_like_axes());
  ASSERT_EQ(cases.size(), 6u);  // 2 dtypes x 3 shapes, not 2 x 27
  EXPECT_EQ(cases[0].label(), "dtype=fp64 M=1 N=4 K=7");
  EXPECT_EQ(cases[2].label(), "dtype=fp64 M=3 N=6 K=9");
  EXPECT_EQ(cases[3].label(), "dtype=fp32 M=1 N=4 K=7");
  EXPECT_EQ(cases[4].integer("N"), 5);
}

TEST(Sweep, ZipGroupBroadcastsSingleValues) {
  auto axes = gemm_like_axes();
  axes = apply_overrides("gemm", axes, overrides({"M=10,20", "N=30", "K=40"}));
  const auto cases = expand_sweep(axes);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[1].label(), "dtype=fp64 M=20 N=30 K=40");
}

TEST(Sweep, PartialZipOverrideGivesSquareShapes) {
  const auto axes = apply_overrides("gemm", gemm_like_axes(), overrides({"M=4096,8192"}));
  const auto cases = expand_sweep(axes);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].label(), "dtype=fp64 M=4096 N=4096 K=4096");
  EXPECT_EQ(cases[1].label(), "dtype=fp64 M=8192 N=8192 K=8192");
}

TEST(Sweep, UnequalZipLengthsAreAUsageError) {
  EXPECT_THROW((void)apply_overrides("gemm", gemm_like_axes(), overrides({"M=1,2", "N=1,2,3"})), usage_error);
}

TEST(Sweep, OverridesApplyByBenchmarkPrefix) {
  const auto mine = apply_overrides("gemm", gemm_like_axes(), overrides({"gemm:dtype=bf16"}));
  EXPECT_EQ(expand_sweep(mine).front().string("dtype"), "bf16");
  const auto other = apply_overrides("gemm", gemm_like_axes(), overrides({"stream:dtype=bf16"}));
  EXPECT_EQ(expand_sweep(other).front().string("dtype"), "fp64");
  // An unprefixed override of an axis this benchmark lacks is left to other benchmarks.
  EXPECT_NO_THROW((void)apply_overrides("gemm", gemm_like_axes(), overrides({"size=1M"})));
}

TEST(Sweep, OverrideErrors) {
  EXPECT_THROW((void)apply_overrides("gemm", gemm_like_axes(), overrides({"gemm:size=1M"})), usage_error);
  EXPECT_THROW((void)apply_overrides("gemm", gemm_like_axes(), overrides({"M=1", "M=2"})), usage_error);
  EXPECT_THROW((void)apply_overrides("gemm", gemm_like_axes(), overrides({"dtype=fp8"})), usage_error);
}

TEST(Sweep, AxisWithoutValuesIsAUsageError) {
  EXPECT_THROW((void)expand_sweep({integer_axis("x", {}, "")}), usage_error);
}

TEST(ParameterSet, TypedAccess) {
  parameter_set p;
  p.set("n", std::int64_t{3});
  p.set("ratio", 0.5);
  p.set("name", std::string("fp32"));
  EXPECT_EQ(p.integer("n"), 3);
  EXPECT_DOUBLE_EQ(p.floating("ratio"), 0.5);
  EXPECT_DOUBLE_EQ(p.floating("n"), 3.0);
  EXPECT_EQ(p.string("name"), "fp32");
  EXPECT_THROW((void)p.integer("name"), error);
  EXPECT_THROW((void)p.at("missing"), error);
  p.set("n", std::int64_t{4});
  EXPECT_EQ(p.entries().size(), 3u);
  EXPECT_EQ(p.integer("n"), 4);
}

}  // namespace
}  // namespace ironbench::core
