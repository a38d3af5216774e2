// The Pareto frontier of throughput against interactivity and the reading of it at one
// interactivity, on made points whose answers are worked out by hand.
#include "schema/interactivity_curve.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ironbench::schema {
namespace {

// A sweep of rising concurrency: interactivity falls as throughput rises, with two points
// beaten by others (index 2 by index 3; index 5 by index 4).
std::vector<curve_point> made_curve_points() {
  return {{100, 50, 0},  // the lowest load: most interactive
          {80, 120, 1}, {40, 200, 2}, {50, 260, 3}, {20, 400, 4}, {15, 380, 5}};
}

TEST(InteractivityCurve, InteractivityIsAThousandOverTpot) {
  EXPECT_DOUBLE_EQ(*interactivity_of_tpot_ms(20), 50);
  EXPECT_DOUBLE_EQ(*interactivity_of_tpot_ms(8.05), 1000 / 8.05);
  EXPECT_FALSE(interactivity_of_tpot_ms(0));
  EXPECT_FALSE(interactivity_of_tpot_ms(-1));
  EXPECT_FALSE(interactivity_of_tpot_ms(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(interactivity_of_tpot_ms(std::numeric_limits<double>::infinity()));
}

TEST(InteractivityCurve, FrontierKeepsThePointsNoneBeatsInRisingInteractivity) {
  const auto frontier = pareto_frontier(made_curve_points());
  const std::vector<curve_point> expected = {{20, 400, 4}, {50, 260, 3}, {80, 120, 1}, {100, 50, 0}};
  EXPECT_EQ(frontier, expected);
}

TEST(InteractivityCurve, TiesAndUnusablePoints) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Same interactivity: the higher throughput wins; identical points: the first is kept; equal
  // throughput at lower interactivity is beaten; NaN, infinite and negative values are left out.
  const std::vector<curve_point> points = {{50, 100, 0},  {50, 150, 1}, {50, 150, 2}, {40, 150, 3},
                                           {nan, 900, 4}, {60, inf, 5}, {-1, 900, 6}, {70, 10, 7}};
  const std::vector<curve_point> expected = {{50, 150, 1}, {70, 10, 7}};
  EXPECT_EQ(pareto_frontier(points), expected);
  EXPECT_TRUE(pareto_frontier({}).empty());
  EXPECT_EQ(pareto_frontier({{10, 5, 3}}).size(), 1u);
}

TEST(InteractivityCurve, ReadsBetweenTheTwoNeighboursLinearly) {
  const auto frontier = pareto_frontier(made_curve_points());
  // 35 tok/s/user lies between (20, 400) and (50, 260): 400 + (15 / 30) x (260 - 400) = 330.
  auto r = read_frontier(frontier, 35);
  ASSERT_EQ(r.status, frontier_reading::kind::interpolated);
  EXPECT_DOUBLE_EQ(*r.throughput, 330);
  EXPECT_EQ(r.low->index, 4u);
  EXPECT_EQ(r.high->index, 3u);
  // 90 between (80, 120) and (100, 50): 120 - 0.5 x 70 = 85.
  r = read_frontier(frontier, 90);
  EXPECT_DOUBLE_EQ(*r.throughput, 85);
  const auto j = reading_json(r);
  EXPECT_EQ(j.at("status"), "interpolated");
  EXPECT_EQ(j.at("interpolated"), true);
  ASSERT_EQ(j.at("from").size(), 2u);
  EXPECT_EQ(j.at("from")[0].at("index"), 1);
  EXPECT_EQ(j.at("from")[1].at("index"), 0);
}

TEST(InteractivityCurve, AFrontierPointIsMeasuredAndTheEndsAreNotExtrapolated) {
  const auto frontier = pareto_frontier(made_curve_points());
  auto r = read_frontier(frontier, 50);
  EXPECT_EQ(r.status, frontier_reading::kind::measured);
  EXPECT_DOUBLE_EQ(*r.throughput, 260);
  EXPECT_EQ(reading_json(r).at("interpolated"), false);
  // The ends themselves are measured.
  EXPECT_DOUBLE_EQ(*read_frontier(frontier, 20).throughput, 400);
  EXPECT_DOUBLE_EQ(*read_frontier(frontier, 100).throughput, 50);
  // Outside [20, 100]: no number, and the nearest end named.
  r = read_frontier(frontier, 19.9);
  EXPECT_EQ(r.status, frontier_reading::kind::below_range);
  EXPECT_FALSE(r.throughput);
  EXPECT_EQ(r.low->index, 4u);
  r = read_frontier(frontier, 150);
  EXPECT_EQ(r.status, frontier_reading::kind::above_range);
  EXPECT_FALSE(r.throughput);
  EXPECT_EQ(r.high->index, 0u);
  EXPECT_FALSE(reading_json(r).contains("throughput"));
  EXPECT_EQ(read_frontier({}, 10).status, frontier_reading::kind::no_frontier);
}

core::case_result made_serve_case(double tpot_ms, double throughput, std::optional<double> per_gpu, bool with_median) {
  core::case_result c;
  c.benchmark = "serve";
  c.metrics.push_back({"median_tpot_ms", tpot_ms, "ms", ""});
  c.metrics.push_back({"output_throughput", throughput, "tok/s", ""});
  if (with_median) c.metrics.push_back({interactivity_key::median, 1000 / tpot_ms, "tok/s/user", ""});
  if (per_gpu) c.metrics.push_back({interactivity_key::output_per_gpu, *per_gpu, "tok/s", ""});
  return c;
}

TEST(InteractivityCurve, CasesGiveTheirPointsPerGpuOnlyWhenEveryCaseHasIt) {
  auto a = made_serve_case(10, 800, 100, true);
  auto b = made_serve_case(20, 1600, 200, true);
  auto invalid = made_serve_case(5, 5000, 625, true);
  invalid.status = core::case_status::invalid;
  core::case_result other;
  other.benchmark = "gemm";
  std::vector<const core::case_result*> cases = {&a, &other, &b, &invalid};
  EXPECT_EQ(curve_throughput_metric(cases), interactivity_key::output_per_gpu);
  const auto points = serve_curve_points(cases, interactivity_key::output_per_gpu);
  const std::vector<curve_point> expected = {{100, 100, 0}, {50, 200, 2}};
  EXPECT_EQ(points, expected);
  // A case recorded before interactivity existed: 1000 / median TPOT; no per-GPU figure there,
  // so the whole endpoint's throughput is drawn for every case.
  auto old = made_serve_case(25, 2000, std::nullopt, false);
  cases.push_back(&old);
  EXPECT_EQ(curve_throughput_metric(cases), "output_throughput");
  const auto endpoint = serve_curve_points(cases, "output_throughput");
  ASSERT_EQ(endpoint.size(), 3u);
  EXPECT_DOUBLE_EQ(endpoint[2].interactivity, 40);
  EXPECT_DOUBLE_EQ(endpoint[2].throughput, 2000);
  EXPECT_EQ(endpoint[2].index, 4u);
}

}  // namespace
}  // namespace ironbench::schema
