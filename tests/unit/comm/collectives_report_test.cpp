#include <gtest/gtest.h>

#include <sstream>

#include "comm/collectives_results.hpp"
#include "report/collectives_table.hpp"

namespace ironbench::comm {
namespace {

std::vector<sweep_row> two_rows(double wrong, double busbw_scale) {
  std::vector<sweep_row> rows;
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 20}) {
    const auto shape = shape_of(collective::all_reduce, bytes, element_type::fp32, 4);
    sweep_row r{collective::all_reduce, element_type::fp32, reduce_op::sum, -1, bytes, shape, {}, {}};
    r.out_of_place = {true, "", 12.5, 0.5 * busbw_scale, 0.75 * busbw_scale, 0, {}};
    r.in_place = {true, "", 13.25, 0.25 * busbw_scale, 0.375 * busbw_scale, wrong, {}};
    rows.push_back(r);
  }
  return rows;
}

TEST(CollectivesTable, NcclTestsLayout) {
  std::ostringstream out;
  report::write_collectives_table(out, two_rows(0, 1));
  const auto text = out.str();
  EXPECT_NE(text.find("#       size         count      type   redop    root     time   algbw   busbw  #wrong"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("           8             2     float     sum      -1    12.50    0.50    0.75       0    13.25"
                      "    0.25    0.38       0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# Out of bounds values : 0 OK"), std::string::npos);
  EXPECT_NE(text.find("# Avg bus bandwidth    : 0.5625"), std::string::npos) << text;
  EXPECT_NE(text.find("# Avg bus bandwidth (sizes >= 1 MiB) : 0.5625"), std::string::npos) << text;
  EXPECT_NE(text.find("# Peak bus bandwidth   : 0.75 at 8 B"), std::string::npos) << text;
}

TEST(CollectivesResults, OneCasePerPlacementWithTrialStatisticsAndWrongMakesInvalid) {
  const std::vector<std::vector<sweep_row>> trials = {two_rows(0, 1), two_rows(3, 2)};
  const auto cases = cases_of(trials, 4, 20, 5);
  ASSERT_EQ(cases.size(), 4u);
  const auto& first = cases[0];
  EXPECT_EQ(first.params.string("collective"), "all_reduce");
  EXPECT_EQ(first.params.string("placement"), "out-of-place");
  EXPECT_EQ(first.params.integer("ranks"), 4);
  ASSERT_TRUE(first.timing.has_value());
  EXPECT_EQ(first.timing->samples_s.size(), 2u);
  EXPECT_EQ(first.timing->batch, 20u);
  EXPECT_DOUBLE_EQ(first.find_metric("busbw")->value, 1.125);  // mean of 0.75 and 1.5
  EXPECT_GT(first.find_metric("busbw_cv")->value, 0);
  EXPECT_EQ(first.status, core::case_status::valid);
  EXPECT_EQ(cases[1].status, core::case_status::invalid);
  EXPECT_EQ(cases[1].reason, "#wrong = 3");
  const auto stats = report::trial_statistics_of(trials);
  ASSERT_EQ(stats.size(), 4u);
  EXPECT_DOUBLE_EQ(stats[0].busbw_mean_gbs, 1.125);
  EXPECT_NEAR(stats[0].busbw_stdev_gbs, 0.530330, 1e-6);
}

}  // namespace
}  // namespace ironbench::comm
