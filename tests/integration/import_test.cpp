// ironbench import: other tools' output through the real binary.
#include <gtest/gtest.h>

#include "core/json.hpp"
#include "process.hpp"

namespace ironbench::testing {
namespace {

const std::string fixtures = std::string(IRONBENCH_TEST_DATA) + "/perftest/";

TEST(Import, PerftestFilesBecomeOneRunWithACasePerRow) {
  const auto r = run_ironbench({"import", "perftest", fixtures + "write_a_gbits.txt", fixtures + "read_a_mbs.txt",
                                "--no-save", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  std::size_t writes = 0, reads = 0;
  for (const auto& c : doc.at("cases")) {
    EXPECT_EQ(c.at("status"), "valid");
    writes += c.at("benchmark") == "ib_write_bw" ? 1 : 0;
    reads += c.at("benchmark") == "ib_read_bw" ? 1 : 0;
  }
  EXPECT_EQ(writes, 23u);
  EXPECT_GE(reads, 20u);
  EXPECT_EQ(doc.at("settings").at("imported"), "perftest");
}

TEST(Import, BadInputIsAOneLineUsageError) {
  auto r = run_ironbench({"import", "perftest", "/nonexistent/file.txt", "--no-save"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("cannot read /nonexistent/file.txt"), std::string::npos);
  r = run_ironbench({"import", "perftest", fixtures + "SOURCES.md", "--no-save"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no perftest"), std::string::npos) << r.err;
  r = run_ironbench({"import", "iperf3", fixtures + "write_a_gbits.txt", "--no-save"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown import format 'iperf3'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ironbench::testing
