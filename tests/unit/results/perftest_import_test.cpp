#include "results/perftest_import.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "usage_error_of.hpp"

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

// Every fixture still reads to the same rows: their number, first and last size, and the sums
// of the averages and message rates (as the table prints them).
TEST(PerftestImport, RealOutputReadsToTheSameRows) {
  struct expected {
    const char* file;
    std::size_t rows;
    std::uint64_t first, last;
    double average_sum, rate_sum;
  };
  for (const auto& e : {expected{"read_a_mbs.txt", 23, 2, 8388608, 55164.49, 59.108384},
                        expected{"read_a_mbs_2.txt", 23, 2, 8388608, 54308.52, 47.518539},
                        expected{"write_D_gbits_client_rdmacm_cuda.txt", 1, 65536, 65536, 181.46, 0.3461},
                        expected{"write_a_gbits.txt", 23, 2, 8388608, 741.00309, 50.835324},
                        expected{"write_a_gbits_server.txt", 1, 8388608, 8388608, 52.52, 0.000783},
                        expected{"write_a_mbs.txt", 23, 2, 8388608, 56336.16, 65.496376},
                        expected{"write_bidir_a_gbits_client_ionic.txt", 23, 2, 8388608, 9002.396611, 139.451516},
                        expected{"write_mibs_client.txt", 1, 65536, 65536, 11030.45, 0.176487},
                        expected{"write_mibs_server.txt", 1, 65536, 65536, 11030.45, 0.176487}}) {
    const auto r = parse_fixture(e.file);
    ASSERT_EQ(r.rows.size(), e.rows) << e.file;
    EXPECT_EQ(r.rows.front().bytes, e.first) << e.file;
    EXPECT_EQ(r.rows.back().bytes, e.last) << e.file;
    double average = 0, rate = 0;
    for (const auto& row : r.rows) {
      average += row.average;
      rate += row.message_rate_mpps;
    }
    EXPECT_NEAR(average, e.average_sum, 1e-6 * e.average_sum) << e.file;
    EXPECT_NEAR(rate, e.rate_sum, 1e-6 * e.rate_sum) << e.file;
  }
}

// write_a_gbits.txt with `row` put in place of its 65536-byte row (line 36).
std::string perftest_with_row(const std::string& row) {
  std::ifstream in(std::string(IRONBENCH_TEST_DATA) + "/perftest/write_a_gbits.txt");
  std::stringstream text;
  text << in.rdbuf();
  auto s = text.str();
  const std::string original = " 65536      5000             52.51              52.50  \t\t   0.100143";
  const auto at = s.find(original);
  EXPECT_NE(at, std::string::npos);
  return s.replace(at, original.size(), row);
}

// The one-line usage error parse_perftest gives for `text` ("" when it gives none).
std::string perftest_error_of(const std::string& text) {
  return usage_error_of([&] { (void)parse_perftest(text, "ib.txt"); });
}

// A value perftest cannot have printed is an error naming the file and line, as nccl-tests'
// and BabelStream's importers have it, not a row left out in silence.
TEST(PerftestImport, ABadValueIsAnErrorWithFileAndLine) {
  const std::string row_line = "ib.txt: line 36: ";
  for (const auto& [row, needle] : std::vector<std::pair<std::string, std::string>>{
           {" 65536  5000  nan  52.50  0.100143", "BW peak 'nan' is not a number"},
           {" 65536  5000  52.51  inf  0.100143", "BW average 'inf' is not a number"},
           {" 65536  5000  52.51  -52.50  0.100143", "BW average '-52.50' is not a number"},
           {" 65536  5000  52.51  52.50  -0.1", "MsgRate '-0.1' is not a number"},
           {" 65536  5000  52.51  52.50  1e400", "MsgRate '1e400' is not a number"},
           {" 65536  5000  1e300  52.50  0.100143", "implausible BW peak 1e300 Gb/sec"},
           {" 65536  5000  52.51  52.50  3e9", "implausible MsgRate 3e9 Mpps"},
           {" 65536  -5000  52.51  52.50  0.100143", "#iterations '-5000' is not a whole number"},
           {" 65536  5000  52.51  52.50", "perftest row with 4 fields, the header has 5"},
           {" 65536  5000  52.51  52.50  0.1  0.2  0.3", "perftest row with 7 fields"},
           {" 655360000000000000000000000  5000  52.51  52.50  0.100143",
            "#bytes '655360000000000000000000000' is beyond 64 bits"},
           {" 9223372036854775808  5000  52.51  52.50  0.100143", "implausible #bytes 9223372036854775808"},
           {" 65536  5000  52.51  52.50  0.100143" + std::string(100000, 'x'),
            "MsgRate '0.100143" + std::string(32, 'x') + "... (100008 bytes)' is not a number"},
       }) {
    const auto message = perftest_error_of(perftest_with_row(row));
    EXPECT_EQ(message.rfind(row_line, 0), 0u) << row.substr(0, 60) << " gave: " << message;
    EXPECT_NE(message.find(needle), std::string::npos) << row.substr(0, 60) << " gave: " << message;
  }
  // A size longer than any number, in a row of 100,000 characters: refused, not a crash.
  const auto message =
      perftest_error_of(perftest_with_row(" " + std::string(100000, '9') + "  5000  52.51  52.50  0.100143"));
  EXPECT_NE(message.find("ib.txt: line 36: #bytes '9999"), std::string::npos) << message;
  EXPECT_NE(message.find("is beyond 64 bits"), std::string::npos) << message;
}

// A file that ends inside the table (no closing rule, or a row cut short) is refused: its
// last rows are missing, and a partial sweep must not pass for the whole one.
TEST(PerftestImport, AFileCutMidTableIsRefused) {
  std::ifstream in(std::string(IRONBENCH_TEST_DATA) + "/perftest/write_a_gbits.txt");
  std::stringstream text;
  text << in.rdbuf();
  const auto whole = text.str();
  const auto cut_at = whole.find(" 131072 ");
  ASSERT_NE(cut_at, std::string::npos);
  EXPECT_EQ(perftest_error_of(whole.substr(0, cut_at)),
            "ib.txt: line 20: the table that starts here has no closing '-----' line, as perftest prints after the "
            "last row; a file cut short?");
  EXPECT_NE(perftest_error_of(whole.substr(0, cut_at + 14)).find("ib.txt: line 37: perftest row with 2 fields"),
            std::string::npos);
  EXPECT_EQ(perftest_error_of(whole), "");
}

// Long lines anywhere are read without a pattern that recurses per character (which
// overflowed the stack near 30,000 characters): a long title or parameter line is text.
TEST(PerftestImport, LongLinesAreReadWithoutRecursion) {
  const std::string spaces(100000, ' ');
  auto r = parse_perftest(
      perftest_with_row(" 65536      5000             52.51              52.50" + spaces + "0.100143"), "x");
  EXPECT_EQ(r.rows.size(), 23u);
  EXPECT_DOUBLE_EQ(r.rows[15].message_rate_mpps, 0.100143);
  const auto long_parameter = perftest_with_row(" 65536  5000  52.51  52.50  0.100143")
                                  .replace(0, 0,
                                           " RDMA_Write" + spaces + "BW Test\n Device" + spaces +
                                               ": mlx5_9\t\tMtu : " + std::string(100000, 'x') + "\n");
  r = parse_perftest(long_parameter, "x");
  EXPECT_EQ(r.parameters.at("Device"), "mlx5_9");
  EXPECT_EQ(r.parameters.at("Mtu").size(), 100000u);
}

}  // namespace
}  // namespace ironbench::results
