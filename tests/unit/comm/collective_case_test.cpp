// An imported nccl-tests row and a measured one with the same numbers make the same case:
// both go through schema::collective_case.
#include <gtest/gtest.h>

#include "comm/collectives_results.hpp"
#include "results/nccl_tests_import.hpp"

namespace ironbench::comm {
namespace {

void expect_same_case(const core::case_result& measured, const core::case_result& imported) {
  EXPECT_EQ(measured.benchmark, imported.benchmark);
  EXPECT_EQ(measured.device, imported.device);
  for (const char* key : {"collective", "dtype", "op", "placement"}) {
    EXPECT_EQ(measured.params.string(key), imported.params.string(key)) << key;
  }
  for (const char* key : {"root", "size", "ranks"}) {
    EXPECT_EQ(measured.params.integer(key), imported.params.integer(key)) << key;
  }
  EXPECT_EQ(measured.param_units, imported.param_units);
  for (const char* name : {"time_us", "algbw", "busbw", "wrong"}) {
    const auto* m = measured.find_metric(name);
    const auto* i = imported.find_metric(name);
    ASSERT_TRUE(m != nullptr && i != nullptr) << name;
    EXPECT_DOUBLE_EQ(m->value, i->value) << name;
    EXPECT_EQ(m->unit, i->unit) << name;
  }
  EXPECT_EQ(measured.status, imported.status);
  EXPECT_EQ(measured.reason, imported.reason);
  EXPECT_EQ(measured.notes.at("count"), imported.notes.at("count"));
}

TEST(CollectiveCase, ImportedAndMeasuredRowsWithTheSameNumbersGiveTheSameCase) {
  const auto shape = shape_of(collective::all_reduce, 1024, element_type::fp32, 4);
  sweep_row row{collective::all_reduce, element_type::fp32, reduce_op::sum, -1, 1024, shape, {}, {}};
  // 1024 B in 12.5 us and 13.25 us: algbw 0.08192 and 0.0772830 GB/s, busbw 2 (n - 1) / n = 1.5 times
  row.out_of_place = {true, "", 12.5, 0.08192, 0.12288, 0, {}};
  row.in_place = {true, "", 13.25, 0.077283, 0.1159245, 3, {}};
  const auto measured = cases_of({{row}}, 4, 20, 5);

  results::nccl_tests_report report;
  report.format = "text";
  results::nccl_tests_row imported_row;
  imported_row.bytes = 1024;
  imported_row.count = shape.param_count;
  imported_row.type = "float";
  imported_row.redop = "sum";
  imported_row.root = -1;
  imported_row.out_of_place = {true, 12.5, 0.08192, 0.12288, 0.0, {}, {}, 0};
  imported_row.in_place = {true, 13.25, 0.077283, 0.1159245, 3.0, {}, {}, 0};
  report.rows.push_back(imported_row);
  const auto imported = results::nccl_tests_cases(report, "all_reduce_perf.txt", {"all_reduce", 4});

  ASSERT_EQ(measured.size(), 2u);
  ASSERT_EQ(imported.size(), 2u);
  expect_same_case(measured[0], imported[0]);
  expect_same_case(measured[1], imported[1]);
  EXPECT_EQ(imported[1].status, core::case_status::invalid);
  EXPECT_EQ(imported[1].reason, "#wrong = 3");
}

}  // namespace
}  // namespace ironbench::comm
