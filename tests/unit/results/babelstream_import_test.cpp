#include "results/babelstream_import.hpp"

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

std::string read_fixture(const std::string& name) { return testing::read_fixture_file("babelstream", name); }

babelstream_report parse_fixture(const std::string& name) { return parse_babelstream(read_fixture(name), name); }

std::vector<core::case_result> import_fixture(const std::string& name) {
  return babelstream_cases(parse_fixture(name), name);
}

const core::case_result& case_of(const std::vector<core::case_result>& cases, const std::string& kernel) {
  for (const auto& c : cases) {
    if (c.params.string("kernel") == kernel) return c;
  }
  throw std::runtime_error("no case of " + kernel);
}

TEST(BabelStreamImport, CsvOfTheCurrentVersion) {
  const auto r = parse_fixture("main_omp_fp64.csv");
  EXPECT_EQ(r.format, "csv");
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[0].function, "Copy");
  EXPECT_EQ(r.rows[0].unit, "MB");
  EXPECT_EQ(r.rows[0].num_times, 10u);
  EXPECT_EQ(r.rows[0].elements, 1048576u);
  EXPECT_EQ(r.rows[0].element_bytes, 8u);
  EXPECT_DOUBLE_EQ(*r.rows[0].max_rate, 177460);
  EXPECT_DOUBLE_EQ(*r.rows[0].min_runtime_s, 9.4541e-05);
  EXPECT_DOUBLE_EQ(*r.rows[0].avg_runtime_s, 0.000989045);
  EXPECT_DOUBLE_EQ(*r.rows[4].max_rate, 57875.8);  // Dot

  const auto cases = babelstream_cases(r, "main_omp_fp64.csv");
  ASSERT_EQ(cases.size(), 5u);
  const auto& copy = case_of(cases, "copy");
  EXPECT_EQ(copy.benchmark, "stream");
  EXPECT_EQ(copy.device, "unknown");
  EXPECT_EQ(copy.params.string("dtype"), "fp64");
  EXPECT_EQ(copy.params.integer("size"), 8388608);  // bytes per array
  EXPECT_EQ(copy.param_units.at("size"), "B");
  std::vector<std::string> names;
  for (const auto& [name, value] : copy.params.entries()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"dtype", "size", "kernel"}));  // ironbench stream's axes
  EXPECT_DOUBLE_EQ(metric(copy, "bandwidth_best"), 177.460);                // 177460 MB/s
  EXPECT_DOUBLE_EQ(metric(copy, "bandwidth"), 2.0 * 8388608 / 0.000989045 / 1e9);
  EXPECT_EQ(copy.find_metric("bandwidth")->unit, "GB/s");
  EXPECT_EQ(copy.work.bytes_read, 8388608);
  EXPECT_EQ(copy.work.bytes_written, 8388608);
  const auto& triad = case_of(cases, "triad");
  EXPECT_DOUBLE_EQ(metric(triad, "bandwidth"), 3.0 * 8388608 / 0.000150429 / 1e9);
  EXPECT_EQ(triad.work.bytes_read, 2.0 * 8388608);
  const auto& dot = case_of(cases, "dot");
  EXPECT_DOUBLE_EQ(metric(dot, "bandwidth_best"), 57.8758);
  EXPECT_EQ(dot.work.bytes_written, 0);
  EXPECT_EQ(dot.notes.at("min_runtime_s"), "0.000289883");
  EXPECT_EQ(dot.status, core::case_status::valid);
  expect_same_cases(cases, round_trip(cases));
}

TEST(BabelStreamImport, FloatAndOtherUnits) {
  const auto fp32 = import_fixture("main_omp_fp32.csv");
  EXPECT_EQ(case_of(fp32, "mul").params.string("dtype"), "fp32");
  EXPECT_EQ(case_of(fp32, "mul").params.integer("size"), 4194304);
  EXPECT_DOUBLE_EQ(metric(case_of(fp32, "add"), "bandwidth_best"), 192.847);

  const auto mib = parse_fixture("main_omp_fp64_mibibytes.csv");
  EXPECT_EQ(mib.rows[0].unit, "MiB");
  EXPECT_EQ(mib.rows[0].num_times, 20u);
  const auto mib_cases = babelstream_cases(mib, "x");
  EXPECT_DOUBLE_EQ(metric(case_of(mib_cases, "copy"), "bandwidth_best"), 93025 * 1048576.0 / 1e9);
  EXPECT_EQ(case_of(mib_cases, "copy").params.integer("size"), 33554432);

  const auto gb = import_fixture("main_omp_fp32_gigabytes.csv");
  EXPECT_DOUBLE_EQ(metric(case_of(gb, "copy"), "bandwidth_best"), 219.098);

  const auto nstream = import_fixture("main_omp_fp64_nstream.csv");
  ASSERT_EQ(nstream.size(), 1u);
  EXPECT_DOUBLE_EQ(metric(nstream[0], "bandwidth"), 4.0 * 8388608 / 0.000170704 / 1e9);
  EXPECT_EQ(nstream[0].work.bytes_read, 3.0 * 8388608);
  expect_same_cases(nstream, round_trip(nstream));
  EXPECT_DOUBLE_EQ(babelstream_unit_bytes("GiB"), 1073741824.0);
  EXPECT_THROW((void)babelstream_unit_bytes("kB"), usage_error);
}

TEST(BabelStreamImport, OlderCsvLayouts) {
  // 5.0 prints the initialisation and read-back rates first, in a "phase" table.
  const auto v5 = parse_fixture("v5.0_omp_fp64.csv");
  ASSERT_EQ(v5.rows.size(), 5u);
  EXPECT_EQ(v5.rows[0].function, "Copy");
  EXPECT_EQ(v5.rows[0].unit, "MB");
  EXPECT_DOUBLE_EQ(*v5.rows[2].max_rate, 113277);
  EXPECT_EQ(parse_fixture("v5.0_omp_fp32_mibibytes.csv").rows[0].unit, "MiB");
  // 4.0: "max_mbytes_per_sec" and "max_mibytes_per_sec".
  const auto v4 = import_fixture("v4.0_omp_fp64.csv");
  EXPECT_DOUBLE_EQ(metric(case_of(v4, "copy"), "bandwidth_best"), 151.015);
  const auto v4_mib = import_fixture("v4.0_omp_fp32_mibibytes.csv");
  EXPECT_DOUBLE_EQ(metric(case_of(v4_mib, "triad"), "bandwidth_best"), 181162 * 1048576.0 / 1e9);
  EXPECT_EQ(import_fixture("v4.0_omp_fp64_nstream_only.csv").size(), 1u);
  // 4.0 --triad-only: an empty table, then one over the whole run in GB/s.
  const auto triad = parse_fixture("v4.0_omp_fp64_triad_only.csv");
  ASSERT_EQ(triad.rows.size(), 1u);
  EXPECT_EQ(triad.rows[0].unit, "GB");
  EXPECT_DOUBLE_EQ(*triad.rows[0].average_rate, 4.05085);
  EXPECT_DOUBLE_EQ(*triad.rows[0].total_runtime_s, 0.0621247);
  const auto triad_cases = babelstream_cases(triad, "x");
  EXPECT_DOUBLE_EQ(metric(triad_cases[0], "bandwidth"), 4.05085);
  EXPECT_EQ(triad_cases[0].find_metric("bandwidth_best"), nullptr);
  expect_same_cases(triad_cases, round_trip(triad_cases));
}

TEST(BabelStreamImport, ConsoleOutput) {
  const auto r = parse_fixture("main_omp_fp64_console.txt");
  EXPECT_EQ(r.format, "text");
  EXPECT_EQ(r.version, "5.0");
  EXPECT_EQ(r.implementation, "OpenMP");
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[0].elements, 1048576u);
  EXPECT_EQ(r.rows[0].element_bytes, 8u);
  EXPECT_EQ(r.rows[0].num_times, 10u);
  EXPECT_DOUBLE_EQ(*r.rows[3].max_rate, 228771.899);  // Triad
  const auto cases = babelstream_cases(r, "x");
  EXPECT_DOUBLE_EQ(metric(case_of(cases, "triad"), "bandwidth_best"), 228.771899);
  // The console prints times to 10 us: a 0.14 ms average is too coarse for a bandwidth.
  EXPECT_EQ(case_of(cases, "triad").find_metric("bandwidth"), nullptr);
  EXPECT_NE(case_of(cases, "triad").notes.at("bandwidth").find("too coarsely"), std::string::npos);
  EXPECT_EQ(case_of(cases, "triad").notes.at("imported_from"),
            "BabelStream console output 5.0 (OpenMP), rates in MB/s");
  const auto mib = parse_fixture("main_omp_fp32_mibibytes_console.txt");
  EXPECT_EQ(mib.rows[0].unit, "MiB");
  EXPECT_EQ(mib.rows[0].element_bytes, 4u);
  // 5.0's console output rounds the array size and gives no element count.
  EXPECT_THROW((void)parse_fixture("v5.0_omp_fp64_console.txt"), usage_error);
}

TEST(BabelStreamImport, ValidationFailuresMakeTheCasesInvalid) {
  const auto text = read_fixture("main_omp_fp64.csv") +
                    "Validation failed on sum. Error 0.00399402\n"
                    "Sum was 1923.42614746094 but should be 1931.13916015625\n";
  const auto cases = babelstream_cases(parse_babelstream(text, "x"), "x");
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[0].status, core::case_status::invalid);
  EXPECT_EQ(cases[0].reason, "Validation failed on sum. Error 0.00399402");
}

TEST(BabelStreamImport, BadInputIsAUsageErrorNamingTheFile) {
  const auto expect_error = [](const std::string& text, const std::string& needle) {
    try {
      (void)babelstream_cases(parse_babelstream(text, "bad.csv"), "bad.csv");
      ADD_FAILURE() << "no error for: " << text.substr(0, 80);
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("bad.csv"), std::string::npos) << message;
      EXPECT_NE(message.find(needle), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  };
  const auto good = read_fixture("main_omp_fp64.csv");
  expect_error("", "empty file");
  expect_error("hello\n", "no BabelStream results");
  std::ifstream nccl(std::string(IRONBENCH_TEST_DATA) + "/nccl-tests/all_reduce_perf_h100_16ranks.txt");
  std::stringstream nccl_text;
  nccl_text << nccl.rdbuf();
  expect_error(nccl_text.str(), "no BabelStream results");
  expect_error("{\"schema_version\": 1, \"cases\": []}", "no BabelStream results");
  expect_error(good.substr(0, good.find("Triad,10,1048576,8,188977") + 25), "line 5: BabelStream row with 5 fields");
  auto corrupt = good;
  corrupt.replace(corrupt.find("0.000150429"), 11, "0.0001504x9");
  expect_error(corrupt, "line 5: avg_runtime '0.0001504x9' is not a number");
  auto count = good;
  count.replace(count.find("Add,10,1048576"), 14, "Add,10,104857a");
  expect_error(count, "n_elements '104857a' is not a whole number");
  // GB/s read as MB/s would be 1000x off: the best rate must match the fastest time.
  auto unit = good;
  unit.replace(unit.find("max_MB_per_sec"), 14, "max_GB_per_sec");
  expect_error(unit, "does not match");
  auto element = good;
  element.replace(element.find("Mul,10,1048576,8"), 16, "Mul,10,1048576,2");
  expect_error(element, "neither float (4) nor double (8)");
  auto kernel = good;
  kernel.replace(kernel.find("Mul,"), 4, "Foo,");
  expect_error(kernel, "'Foo' is not a BabelStream kernel");
  expect_error("function,num_times,n_elements\nCopy,10,1048576\n", "without a sizeof column");
  auto console = read_fixture("main_omp_fp64_console.txt");
  console.replace(console.find("0.00026"), 7, "0.000x6");
  expect_error(console, "'0.000x6' is not a number");
}

// Lines of 100,000 characters (which overflowed the stack of a recursive pattern, exit 139)
// are read, or refused with the file and line in one short message.
TEST(BabelStreamImport, LongLinesAreReadWithoutRecursion) {
  const std::string long_text(100000, 'x');
  auto text = read_fixture("main_omp_fp64_console.txt");
  text.replace(text.find("Implementation: OpenMP"), 22, "Implementation: " + long_text);
  text.replace(text.find("Version: 5.0"), 12, "Version: 5.0 " + long_text);
  text.replace(text.find("Running  Classic kernels 10 times"), 33,
               "Running  Classic kernels " + std::string(100000, ' ') + "10 times");
  const auto r = parse_babelstream(text, "x");
  EXPECT_EQ(r.implementation, long_text);
  EXPECT_EQ(r.version, "5.0");
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[0].num_times, 10u);
  EXPECT_DOUBLE_EQ(*r.rows[3].max_rate, 228771.899);

  auto unit = read_fixture("main_omp_fp64_console.txt");
  unit.replace(unit.find("MB/s"), 4, long_text + "/s");
  try {
    (void)parse_babelstream(unit, "bad.txt");
    ADD_FAILURE() << "a unit of 100,000 letters was accepted";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(),
                 "bad.txt: line 9: unknown BabelStream unit 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (100002 "
                 "bytes)'");
  }
  auto csv = read_fixture("main_omp_fp64.csv");
  const auto second_line = csv.find('\n') + 1;
  csv.replace(csv.find(',', second_line) + 1, 0, std::string(100000, '1'));
  try {
    (void)parse_babelstream(csv, "bad.csv");
    ADD_FAILURE() << "a count of 100,000 digits was accepted";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("bad.csv: line 2: ", 0), 0u) << message.substr(0, 200);
    EXPECT_LT(message.size(), 200u) << message.substr(0, 200);
  }
}

}  // namespace
}  // namespace ironbench::results
