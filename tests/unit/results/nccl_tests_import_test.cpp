#include "results/nccl_tests_import.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "import_fixtures.hpp"

namespace ironbench::results {
namespace {

using testing::expect_same_cases;
using testing::metric;
using testing::round_trip;

std::string read_fixture(const std::string& name) { return testing::read_fixture_file("nccl-tests", name); }

std::vector<nccl_tests_report> parse_fixture(const std::string& name) {
  return parse_nccl_tests(read_fixture(name), name);
}

const nccl_tests_row& row_of(const nccl_tests_report& r, std::uint64_t bytes) {
  for (const auto& row : r.rows) {
    if (row.bytes == bytes) return row;
  }
  throw std::runtime_error("no row of " + std::to_string(bytes) + " B");
}

const core::case_result& case_of(const std::vector<core::case_result>& cases, std::int64_t size,
                                 const std::string& placement) {
  for (const auto& c : cases) {
    if (c.params.integer("size") == size && c.params.string("placement") == placement) return c;
  }
  throw std::runtime_error("no case of " + std::to_string(size) + " B " + placement);
}

TEST(NcclTestsImport, AllReduceOverSixteenH100s) {
  const auto reports = parse_fixture("all_reduce_perf_h100_16ranks.txt");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.format, "text");
  EXPECT_TRUE(r.program.empty());  // this version does not print "Collective test starting"
  EXPECT_EQ(r.settings.at("nGpus"), "1");
  EXPECT_EQ(r.settings.at("iters"), "20");
  EXPECT_EQ(r.settings.at("warmup iters"), "5");
  EXPECT_EQ(r.settings.at("validation"), "1");
  ASSERT_EQ(r.devices.size(), 16u);
  EXPECT_EQ(r.devices[15].rank, 15);
  EXPECT_EQ(r.devices[15].hostname, "ztan-mig-gq73");
  EXPECT_EQ(r.devices[15].bus, "0000:8c:00");
  EXPECT_EQ(r.devices[15].name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(r.rows.size(), 31u);  // 8 B .. 8 GiB
  const auto& big = row_of(r, 1073741824);
  EXPECT_EQ(big.count, 268435456u);
  EXPECT_EQ(big.type, "float");
  EXPECT_EQ(big.redop, "sum");
  EXPECT_EQ(big.root, -1);
  EXPECT_DOUBLE_EQ(big.out_of_place.time_us, 6759.0);
  EXPECT_DOUBLE_EQ(big.out_of_place.algbw_gbs, 158.86);
  EXPECT_DOUBLE_EQ(big.out_of_place.busbw_gbs, 297.86);
  EXPECT_DOUBLE_EQ(big.in_place.busbw_gbs, 298.82);
  EXPECT_EQ(big.in_place.wrong, 0.0);
  EXPECT_DOUBLE_EQ(row_of(r, 2147483648).out_of_place.time_us, 12646);  // "%7.0f" once the time needs 5 digits
  EXPECT_DOUBLE_EQ(*r.average_busbw_gbs, 70.742);
  EXPECT_EQ(r.out_of_bounds, 0);

  const auto cases = nccl_tests_cases(r, "all_reduce_perf_h100_16ranks.txt", {});
  ASSERT_EQ(cases.size(), 62u);
  const auto& c = case_of(cases, 8589934592, "in-place");
  EXPECT_EQ(c.benchmark, "collectives");
  EXPECT_EQ(c.device, "16 ranks");
  EXPECT_EQ(c.params.string("collective"), "all_reduce");
  EXPECT_EQ(c.params.string("dtype"), "fp32");
  EXPECT_EQ(c.params.string("op"), "sum");
  EXPECT_EQ(c.params.integer("root"), -1);
  EXPECT_EQ(c.params.integer("ranks"), 16);
  EXPECT_EQ(c.param_units.at("size"), "B");
  EXPECT_DOUBLE_EQ(c.find_metric("busbw")->value, 337.35);
  EXPECT_DOUBLE_EQ(c.find_metric("algbw")->value, 179.92);
  EXPECT_DOUBLE_EQ(c.find_metric("time_us")->value, 47743);
  EXPECT_EQ(c.find_metric("busbw")->unit, "GB/s");
  EXPECT_EQ(c.find_metric("wrong")->value, 0);
  EXPECT_EQ(c.status, core::case_status::valid);
  EXPECT_EQ(c.notes.at("devices"), "16 x NVIDIA H100 80GB HBM3 on 2 host(s)");
  EXPECT_EQ(c.notes.at("avg_bus_bandwidth"), "70.742 GB/s");
  // The parameters ironbench's own collectives cases have, in their order.
  std::vector<std::string> names;
  for (const auto& [name, value] : c.params.entries()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"collective", "dtype", "op", "root", "size", "placement", "ranks"}));
  expect_same_cases(cases, round_trip(cases));
}

TEST(NcclTestsImport, RcclTestsOnMi300x) {
  const auto reports = parse_fixture("all_reduce_perf_mi300x_8ranks_rccl.txt");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.version_line, "rccl-tests: Version develop:a7809b3");
  EXPECT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.devices[0].name, "AMD Instinct MI300X");
  ASSERT_EQ(r.rows.size(), 31u);
  EXPECT_DOUBLE_EQ(row_of(r, 8589934592).in_place.busbw_gbs, 315.91);
  EXPECT_DOUBLE_EQ(row_of(r, 16777216).out_of_place.time_us, 149.9);
  EXPECT_DOUBLE_EQ(*r.average_busbw_gbs, 110.464);
  const auto cases = nccl_tests_cases(r, "all_reduce_perf_mi300x_8ranks_rccl.txt", {});
  EXPECT_EQ(cases.front().device, "8 ranks");
  EXPECT_EQ(cases.front().notes.at("version"), "rccl-tests: Version develop:a7809b3");
  expect_same_cases(cases, round_trip(cases));
}

TEST(NcclTestsImport, TwoTestsInOneFileNameTheirCollectives) {
  // rccl-tests 2.17.9 prints "# Collective test starting: NAME": the file name says nothing.
  const auto reports = parse_fixture("rccl_tests_2.17.9_mi300_8gpu.txt");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].program, "all_reduce_perf");
  EXPECT_EQ(reports[1].program, "alltoall_perf");
  EXPECT_EQ(reports[0].rows.size(), 29u);  // 4 B .. 1 GiB
  EXPECT_EQ(reports[1].rows.size(), 25u);  // four empty rows, then 128 B .. 128 MiB
  EXPECT_DOUBLE_EQ(*reports[0].average_busbw_gbs, 83.8755);
  EXPECT_DOUBLE_EQ(*reports[1].average_busbw_gbs, 47.2116);
  EXPECT_EQ(reports[1].version_line,
            "rccl-tests version 2.17.9-develop:2596ca5f71 rccl-headers=22803 rccl-library=22707");
  EXPECT_EQ(reports[1].devices.size(), 8u);
  EXPECT_EQ(nccl_tests_collective(reports[0], "rccl_tests_2.17.9_mi300_8gpu.txt", {}), "all_reduce");
  const auto cases = nccl_tests_cases(reports[1], "rccl_tests_2.17.9_mi300_8gpu.txt", {});
  const auto& out = case_of(cases, 134217728, "out-of-place");
  EXPECT_EQ(out.params.string("collective"), "alltoall");
  EXPECT_EQ(out.params.string("op"), "none");
  EXPECT_DOUBLE_EQ(out.find_metric("busbw")->value, 268.26);
  EXPECT_EQ(out.find_metric("wrong")->value, 0);
  const auto& in = case_of(cases, 134217728, "in-place");
  EXPECT_EQ(in.find_metric("wrong")->value, -1);  // "N/A"
  EXPECT_EQ(in.notes.at("verification"), "not reported (N/A)");
  EXPECT_DOUBLE_EQ(in.find_metric("time_us")->value, 439.01);
  expect_same_cases(cases, round_trip(cases));
}

TEST(NcclTestsImport, OldAlltoallWithoutRootColumnAndBlankRedop) {
  // nccl-tests before 2.13: no root column, an "error" column, alltoall prints no redop.
  const auto reports = parse_fixture("alltoall_perf_a100_8gpu_2021.log");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.prefix_columns, (std::vector<std::string>{"size", "count", "type", "redop"}));
  EXPECT_TRUE(r.wrong_is_max_error);
  EXPECT_EQ(r.settings.at("validation"), "0");
  EXPECT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.devices[3].name, "A100-SXM4-40GB");
  EXPECT_EQ(r.devices[3].bus, "0x00");
  ASSERT_EQ(r.rows.size(), 34u);
  EXPECT_TRUE(r.rows[0].redop.empty());
  EXPECT_FALSE(r.rows[0].root.has_value());
  EXPECT_FALSE(r.rows[0].out_of_place.wrong.has_value());
  EXPECT_DOUBLE_EQ(row_of(r, 8589934592).out_of_place.busbw_gbs, 224.31);
  EXPECT_DOUBLE_EQ(*r.average_busbw_gbs, 58.6481);
  const auto cases = nccl_tests_cases(r, "alltoall_perf_a100_8gpu_2021.log", {});
  ASSERT_EQ(cases.size(), 68u);
  const auto& c = case_of(cases, 268435456, "in-place");
  EXPECT_EQ(c.params.string("collective"), "alltoall");
  EXPECT_EQ(c.params.string("op"), "none");
  EXPECT_EQ(c.params.integer("root"), -1);
  EXPECT_DOUBLE_EQ(c.find_metric("time_us")->value, 1167.8);
  EXPECT_EQ(c.find_metric("wrong")->value, -1);
  EXPECT_EQ(c.find_metric("max_error"), nullptr);
  EXPECT_EQ(c.notes.at("verification"), "nccl-tests before 2.13: the largest deviation (max_error), not a count");
  expect_same_cases(cases, round_trip(cases));
}

TEST(NcclTestsImport, OldBroadcastWithRootAndNcclMessagesMixedIn) {
  const auto reports = parse_fixture("broadcast_perf_a100_8gpu_2021.log");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.prefix_columns, (std::vector<std::string>{"size", "count", "type", "root"}));
  ASSERT_EQ(r.rows.size(), 34u);
  EXPECT_EQ(r.rows[0].root, 0);
  EXPECT_DOUBLE_EQ(row_of(r, 4294967296).in_place.busbw_gbs, 233.66);
  const auto cases = nccl_tests_cases(r, "broadcast_perf_a100_8gpu_2021.log", {});
  EXPECT_EQ(cases[0].params.string("collective"), "broadcast");
  EXPECT_EQ(cases[0].params.integer("root"), 0);
  EXPECT_EQ(cases[0].params.string("op"), "none");
  // Named something else, the columns do not tell broadcast from gather or scatter.
  EXPECT_THROW((void)nccl_tests_collective(r, "run.log", {}), usage_error);
  EXPECT_EQ(nccl_tests_collective(r, "run.log", {.collective = "broadcast_perf", .ranks = 0}), "broadcast");
  // A root column with ranks >= 0 is not an all_reduce.
  EXPECT_THROW((void)nccl_tests_collective(r, "run.log", {.collective = "all_reduce", .ranks = 0}), usage_error);
}

TEST(NcclTestsImport, SendrecvWithoutPreambleNeedsRanks) {
  const auto reports = parse_fixture("sendrecv_perf_a100_8gpu.txt");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_TRUE(r.devices.empty());
  EXPECT_FALSE(r.average_busbw_gbs.has_value());
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(r.rows[3].out_of_place.busbw_gbs, 195.10);
  EXPECT_FALSE(r.rows[3].in_place.wrong.has_value());
  auto cases = nccl_tests_cases(r, "sendrecv_perf_a100_8gpu.txt", {});
  EXPECT_EQ(cases[0].device, "unknown ranks");
  EXPECT_EQ(cases[0].params.integer("ranks"), 0);
  cases = nccl_tests_cases(r, "sendrecv_perf_a100_8gpu.txt", {.collective = "", .ranks = 8});
  EXPECT_EQ(cases[0].device, "8 ranks");
  EXPECT_EQ(cases[0].params.string("collective"), "sendrecv");
  EXPECT_EQ(cases[0].params.string("op"), "none");  // sendrecv does not reduce, whatever the redop column says
  // Without a name the collective is unknown.
  EXPECT_THROW((void)nccl_tests_cases(r, "results.txt", {}), usage_error);
  // --ranks must agree with the ranks the output lists.
  const auto h100 = parse_fixture("all_reduce_perf_h100_16ranks.txt");
  EXPECT_THROW((void)nccl_tests_cases(h100[0], "all_reduce_perf.txt", {.collective = "", .ranks = 8}), usage_error);
}

TEST(NcclTestsImport, FileNamesAndOptionsNameTheCollective) {
  const auto r = parse_fixture("sendrecv_perf_a100_8gpu.txt")[0];
  EXPECT_EQ(nccl_tests_collective(r, "/logs/node1-sendrecv_perf.log", {}), "sendrecv");
  EXPECT_EQ(nccl_tests_collective(r, "run.txt", {.collective = "sendrecv", .ranks = 0}), "sendrecv");
  const auto all_reduce = parse_fixture("all_reduce_perf_h100_16ranks.txt")[0];
  EXPECT_EQ(nccl_tests_collective(all_reduce, "x/reduce_scatter_perf.txt", {}), "reduce_scatter");
  EXPECT_EQ(nccl_tests_collective(all_reduce, "all_reduce_perf_8gpu.log", {}), "all_reduce");
  EXPECT_THROW((void)nccl_tests_collective(all_reduce, "run.txt", {.collective = "allreduce", .ranks = 0}),
               usage_error);
  // The program the output names wins over the file name; --collective must agree with it.
  const auto two = parse_fixture("rccl_tests_2.17.9_mi300_8gpu.txt");
  EXPECT_EQ(nccl_tests_collective(two[1], "all_reduce_perf.txt", {}), "alltoall");
  EXPECT_THROW((void)nccl_tests_collective(two[1], "x.txt", {.collective = "all_gather", .ranks = 0}), usage_error);
  EXPECT_EQ(ironbench_dtype("half"), "fp16");
  EXPECT_EQ(ironbench_dtype("bfloat16"), "bf16");
  EXPECT_EQ(ironbench_dtype("int"), "int32");
  EXPECT_EQ(ironbench_dtype("double"), "fp64");
  EXPECT_EQ(ironbench_dtype("uint8"), "uint8");
}

TEST(NcclTestsImport, JsonOutputOfNewerNcclTests) {
  const auto reports = parse_fixture("all_reduce_perf_h100_16ranks_constructed.json");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.format, "json");
  EXPECT_EQ(r.program, "/opt/src/nccl-tests/build/all_reduce_perf");
  EXPECT_EQ(r.devices.size(), 16u);
  EXPECT_EQ(r.settings.at("iterations"), "20");
  ASSERT_EQ(r.rows.size(), 6u);
  EXPECT_EQ(r.rows[5].bytes, 8589934592u);
  EXPECT_EQ(r.rows[5].root, -1);  // written as the string "    -1"
  EXPECT_DOUBLE_EQ(r.rows[5].out_of_place.busbw_gbs, 338.82);
  EXPECT_EQ(r.rows[5].in_place.wrong, 0.0);
  EXPECT_DOUBLE_EQ(*r.average_busbw_gbs, 70.742);
  const auto cases = nccl_tests_cases(r, "all_reduce_perf_h100_16ranks_constructed.json", {});
  ASSERT_EQ(cases.size(), 12u);
  const auto text = nccl_tests_cases(parse_fixture("all_reduce_perf_h100_16ranks.txt")[0], "all_reduce_perf.txt", {});
  // The same rows as in the text output, as the same cases.
  const auto& from_json = case_of(cases, 8589934592, "out-of-place");
  const auto& from_text = case_of(text, 8589934592, "out-of-place");
  EXPECT_EQ(from_json.params, from_text.params);
  EXPECT_EQ(from_json.device, from_text.device);
  EXPECT_DOUBLE_EQ(from_json.find_metric("busbw")->value, from_text.find_metric("busbw")->value);
  expect_same_cases(cases, round_trip(cases));
  // Older nccl-tests spelled the summary "average_bus_bandwidith" / "bandwidith".
  auto old = read_fixture("all_reduce_perf_h100_16ranks_constructed.json");
  old.replace(old.find("\"average_bus_bandwidth\":{\"bandwidth\""), 36, "\"average_bus_bandwidith\":{\"bandwidith\"");
  EXPECT_DOUBLE_EQ(*parse_nccl_tests(old, "old.json")[0].average_busbw_gbs, 70.742);
}

TEST(NcclTestsImport, RealJsonWithEveryIterationTimed) {
  // Two T4s driven by one process (-g 2): the JSON lists the process once; busbw = algbw
  // for all_reduce on 2 ranks (2 (n - 1) / n = 1).
  const auto reports = parse_fixture("all_reduce_perf_t4_2gpu_per_iter.json");
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.format, "json");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].type, "half");
  EXPECT_DOUBLE_EQ(r.rows[0].out_of_place.busbw_gbs, 5.731221);
  ASSERT_EQ(r.rows[0].out_of_place.iteration_times_us.size(), 50u);
  EXPECT_DOUBLE_EQ(r.rows[0].out_of_place.iteration_times_us.front(), 23677.312851);
  EXPECT_DOUBLE_EQ(r.rows[0].in_place.iteration_times_us.back(), 23526.432037);
  const auto cases = nccl_tests_cases(r, "t4.json", {});
  ASSERT_EQ(cases.size(), 2u);
  const auto& c = case_of(cases, 134217728, "out-of-place");
  EXPECT_EQ(c.params.integer("ranks"), 2);
  EXPECT_EQ(c.params.string("dtype"), "fp16");
  EXPECT_EQ(c.params.string("collective"), "all_reduce");
  ASSERT_TRUE(c.timing.has_value());
  EXPECT_EQ(c.timing->samples_s.size(), 50u);
  EXPECT_NEAR(c.timing->time_s.median * 1e6, (23450.815201 + 23453.439713) / 2, 1e-6);  // the 25th and 26th of 50
  EXPECT_DOUBLE_EQ(c.find_metric("wrong")->value, 0);
  EXPECT_EQ(round_trip(cases).at(0).timing->samples_s.size(), 50u);
}

TEST(NcclTestsImport, BadInputIsAUsageErrorNamingTheFile) {
  const auto expect_error = [](const std::string& text, const std::string& needle) {
    try {
      (void)parse_nccl_tests(text, "bad.txt");
      ADD_FAILURE() << "no error for: " << text.substr(0, 80);
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("bad.txt"), std::string::npos) << message;
      EXPECT_NE(message.find(needle), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  };
  expect_error("", "empty file");
  expect_error("hello\nworld\n", "no nccl-tests table");
  expect_error(read_fixture("../perftest/write_a_gbits.txt"), "no nccl-tests table");
  auto text = read_fixture("all_reduce_perf_h100_16ranks.txt");
  auto truncated = text.substr(0, text.find("  338.82      0    47743"));
  expect_error(truncated, "truncated nccl-tests row");
  auto corrupt = text;
  corrupt.replace(corrupt.find("180.71"), 6, "18O.71");
  expect_error(corrupt, "'18O.71' in the algbw column is not a number");
  auto negative = text;
  negative.replace(negative.find("  123.2  "), 9, "  -123.2 ");
  expect_error(negative, "not a number");
  auto extra = text;
  extra.replace(extra.find("     sum      -1    123.2"), 25, "     sum  x   -1    123.2");
  expect_error(extra, "fields, the header has");
  expect_error("{\"schema_version\": 1, \"cases\": []}", "not an nccl-tests report");
  expect_error(read_fixture("../vllm/vllm_sweep_opt125m_c2.json"), "not an nccl-tests report");
  expect_error("{\"results\": [", "not valid JSON");
  auto json_nan = read_fixture("all_reduce_perf_h100_16ranks_constructed.json");
  json_nan.replace(json_nan.find("\"bus_bw\":338.820000"), 19, "\"bus_bw\":\"nan\"     ");
  expect_error(json_nan, "not a number");
  auto json_type = read_fixture("all_reduce_perf_h100_16ranks_constructed.json");
  json_type.replace(json_type.find("\"hostname\":\"ztan-mig-235z\""), 26, "\"hostname\":[1,2,3]        ");
  expect_error(json_type, "malformed nccl-tests JSON");
}

// A device's rank or index in the JSON that is a fraction, a huge or a negative number (a
// conversion to int that is undefined), and settings whose product of processes, GPUs and
// threads overflows an int, are usage errors naming the file and the key.
TEST(NcclTestsImport, ImplausibleRanksInJsonAreUsageErrors) {
  const auto json = read_fixture("all_reduce_perf_h100_16ranks_constructed.json");
  const auto with = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  const auto expect_error = [](const std::string& text, const std::string& needle, bool when_converting) {
    try {
      const auto reports = parse_nccl_tests(text, "bad.json");
      if (!when_converting) ADD_FAILURE() << "parsed, expected: " << needle;
      (void)nccl_tests_cases(reports.at(0), "bad.json", {});
      ADD_FAILURE() << "no error, expected: " << needle;
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("bad.json: "), std::string::npos) << message;
      EXPECT_NE(message.find(needle), std::string::npos) << message;
    }
  };
  expect_error(with(json, "\"rank\":0,", "\"rank\":1.6e129,"),
               "config.devices[0].rank is 1.6e+129 in the nccl-tests JSON, not an integer from 0 to 16777215", false);
  expect_error(with(json, "\"rank\":0,", "\"rank\":-1,"), "config.devices[0].rank is -1", false);
  expect_error(with(json, "\"rank\":0,", "\"rank\":2147483647,"), "config.devices[0].rank is 2147483647", false);
  expect_error(with(json, "\"device\":0,", "\"device\":0.5,"), "config.devices[0].device is 0.5", false);
  expect_error(with(with(json, "\"ngpus\":1", "\"ngpus\":65535"), "\"nthreads\":1", "\"nthreads\":65535"),
               "processes of 65535 GPUs on each of 65535 threads are more than 16777215 ranks", true);
  // The largest accepted: a rank of 16777215 counts 16777216 ranks.
  const auto largest = parse_nccl_tests(with(json, "\"rank\":0,", "\"rank\":16777215,"), "big.json");
  EXPECT_EQ(largest.at(0).devices.at(0).rank, 16777215);
}

// Header lines of 100,000 characters (which overflowed the stack of a recursive pattern,
// exit 139) are read, or refused with the file and line in one short message.
TEST(NcclTestsImport, LongHeaderLinesAreReadWithoutRecursion) {
  const std::string long_text(100000, 'x');
  const auto text = read_fixture("rccl_tests_2.17.9_mi300_8gpu.txt");
  auto versioned = text;
  versioned.replace(0, versioned.find('\n'), "# rccl-tests version 2.17.9 " + long_text);
  const auto reports = parse_nccl_tests(versioned, "rccl.txt");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].version_line, "rccl-tests version 2.17.9 " + long_text);
  EXPECT_EQ(reports[0].rows.size(), parse_fixture("rccl_tests_2.17.9_mi300_8gpu.txt")[0].rows.size());

  const auto expect_error = [](const std::string& bad, const std::string& expected) {
    try {
      (void)parse_nccl_tests(bad, "bad.txt");
      ADD_FAILURE() << "no error for: " << expected;
    } catch (const usage_error& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  };
  auto average = text;
  average.replace(average.find("83.8755"), 7, std::string(100000, '8') + "x");
  expect_error(average,
               "bad.txt: line 48: the average bus bandwidth '8888888888888888888888888888888888888888... "
               "(100001 bytes)' is not a number");
  auto negative = text;
  negative.replace(negative.find("83.8755"), 7, "-83.8755");
  expect_error(negative, "bad.txt: line 48: the average bus bandwidth '-83.8755' is not a number");
  // A size beyond 64 bits in a row is an error with its line, not a row left out.
  auto huge = read_fixture("all_reduce_perf_h100_16ranks.txt");
  const auto row = huge.find("\n  1073741824 ");
  ASSERT_NE(row, std::string::npos);
  huge.replace(row + 1, 12, "  " + std::string(100000, '9'));
  try {
    (void)parse_nccl_tests(huge, "big.txt");
    ADD_FAILURE() << "a size beyond 64 bits was accepted";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("big.txt: line 51: size '9999", 0), 0u) << message.substr(0, 200);
    EXPECT_NE(message.find("is beyond 64 bits"), std::string::npos) << message.substr(0, 200);
  }
  // Long text in a rank line and after a table.
  auto ranks = read_fixture("all_reduce_perf_h100_16ranks.txt");
  ranks.replace(ranks.find("NVIDIA H100 80GB HBM3"), 21, long_text);
  ranks.replace(ranks.find("# Avg bus bandwidth"), 0, "# " + long_text + "\n" + long_text + "\n");
  const auto read = parse_nccl_tests(ranks, "all_reduce_perf.txt");
  EXPECT_EQ(read[0].devices[0].name, long_text);
  EXPECT_EQ(read[0].rows.size(), 31u);
}

}  // namespace
}  // namespace ironbench::results
