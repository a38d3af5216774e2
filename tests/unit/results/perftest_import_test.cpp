#include "results/perftest_import.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace ironbench::results {
namespace {

perftest_report parse_fixture(const std::string& name) {
  std::ifstream in(std::string(IRONBENCH_TEST_DATA) + "/perftest/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return parse_perftest(text.str(), name);
}

TEST(PerftestImport, WriteSweepInGbits) {
  const auto r = parse_fixture("write_a_gbits.txt");
  EXPECT_EQ(r.test, "RDMA_Write");
  EXPECT_FALSE(r.bidirectional);
  EXPECT_EQ(r.unit, "Gb/sec");
  EXPECT_EQ(r.side, "client");
  EXPECT_EQ(r.parameters.at("Device"), "mlx5_0");
  EXPECT_EQ(r.parameters.at("Number of qps"), "1");
  EXPECT_EQ(r.parameters.at("Transport type"), "IB");
  EXPECT_EQ(r.parameters.at("Link type"), "Ethernet");
  ASSERT_EQ(r.rows.size(), 23u);  // 2 B .. 8 MiB
  EXPECT_EQ(r.rows.front().bytes, 2u);
  EXPECT_DOUBLE_EQ(r.rows.front().peak, 0.080755);  // the 6-decimal format of small rates
  EXPECT_DOUBLE_EQ(r.rows.front().average, 0.073090);
  EXPECT_DOUBLE_EQ(r.rows.front().message_rate_mpps, 4.568094);
  EXPECT_EQ(r.rows.back().bytes, 8388608u);
  EXPECT_EQ(r.rows.back().iterations, 5000u);
}

TEST(PerftestImport, ServerSideHasOnlyTheFinalRow) {
  const auto r = parse_fixture("write_a_gbits_server.txt");
  EXPECT_EQ(r.side, "server");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].bytes, 8388608u);
}

TEST(PerftestImport, ReadSweepInMegabytesWithStderrMixedIn) {
  const auto r = parse_fixture("read_a_mbs_2.txt");
  EXPECT_EQ(r.test, "RDMA_Read");
  EXPECT_EQ(r.unit, "MB/sec");
  ASSERT_GE(r.rows.size(), 20u);
  for (std::size_t i = 1; i < r.rows.size(); ++i) EXPECT_EQ(r.rows[i].bytes, 2 * r.rows[i - 1].bytes);
  EXPECT_NEAR(to_gbits(1000.0, "MB/sec"), 8.388608, 1e-12);
  EXPECT_NEAR(to_gbits(1000.0, "MiB/sec"), 8.388608, 1e-12);
  EXPECT_EQ(parse_fixture("read_a_mbs.txt").rows.size(), parse_fixture("write_a_mbs.txt").rows.size());
}

TEST(PerftestImport, NewerMibHeaderAndDurationMode) {
  const auto mib = parse_fixture("write_mibs_client.txt");
  EXPECT_EQ(mib.unit, "MiB/sec");
  EXPECT_EQ(mib.rows.size(), 1u);
  const auto server = parse_fixture("write_mibs_server.txt");
  EXPECT_EQ(server.rows.size(), 1u);
  const auto duration = parse_fixture("write_D_gbits_client_rdmacm_cuda.txt");
  EXPECT_FALSE(duration.peak_measured);
  EXPECT_EQ(duration.parameters.at("Number of qps"), "16");
  ASSERT_EQ(duration.rows.size(), 1u);
  EXPECT_EQ(duration.rows[0].bytes, 65536u);
  const auto cases = perftest_cases(duration, "x");
  EXPECT_EQ(cases[0].find_metric("bw_peak"), nullptr);
  EXPECT_NE(cases[0].find_metric("bw_average"), nullptr);
}

TEST(PerftestImport, BidirectionalRowsBecomeCases) {
  const auto r = parse_fixture("write_bidir_a_gbits_client_ionic.txt");
  EXPECT_TRUE(r.bidirectional);
  EXPECT_EQ(r.parameters.at("Number of qps"), "4");
  ASSERT_GE(r.rows.size(), 20u);
  const auto cases = perftest_cases(r, "bidir.txt");
  ASSERT_EQ(cases.size(), r.rows.size());
  EXPECT_EQ(cases[0].benchmark, "ib_write_bw");
  EXPECT_EQ(cases[0].params.string("direction"), "bidirectional");
  EXPECT_EQ(cases.back().params.integer("size"), static_cast<std::int64_t>(r.rows.back().bytes));
  EXPECT_DOUBLE_EQ(cases.back().find_metric("bw_average")->value, r.rows.back().average);
  EXPECT_EQ(cases.back().find_metric("bw_average")->unit, "Gb/s");
}

TEST(PerftestImport, TextWithoutAReportIsAUsageError) {
  EXPECT_THROW((void)parse_perftest("hello\n", "x"), usage_error);
  EXPECT_THROW((void)parse_perftest("                    RDMA_Write BW Test\n", "x"), usage_error);
  EXPECT_THROW(
      (void)parse_perftest("                    RDMA_Write BW Test\n #bytes     #iterations    BW peak[Gb/sec]    "
                           "BW average[Gb/sec]   MsgRate[Mpps]\n",
                           "x"),
      usage_error);
}

}  // namespace
}  // namespace ironbench::results
