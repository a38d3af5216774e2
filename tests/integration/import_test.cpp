// ironbench import: other tools' output through the real binary. The tests that store what
// they import (ImportStore) run on both back ends (store_backends.hpp): an SQLite file and a
// fresh database of the fixture's PostgreSQL server.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/json.hpp"
#include "process.hpp"
#include "store_backends.hpp"

namespace ironbench::testing {
namespace {

const std::string fixtures = std::string(IRONBENCH_TEST_DATA) + "/perftest/";
const std::string data = std::string(IRONBENCH_TEST_DATA) + "/";

// The one-line error of an import that must fail with a usage error (exit code 2).
std::string usage_error_of(const std::vector<std::string>& args) {
  const auto r = run_ironbench(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  return r.err;
}

TEST(Import, PerftestFilesBecomeOneRunWithACasePerRow) {
  const auto r = run_ironbench(
      {"import", "perftest", fixtures + "write_a_gbits.txt", fixtures + "read_a_mbs.txt", "--no-save", "--json", "-"});
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
  EXPECT_NE(r.err.find("cannot read perftest output '/nonexistent/file.txt': No such file or directory"),
            std::string::npos)
      << r.err;
  r = run_ironbench({"import", "perftest", fixtures + "SOURCES.md", "--no-save"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no perftest"), std::string::npos) << r.err;
  r = run_ironbench({"import", "iperf3", fixtures + "write_a_gbits.txt", "--no-save"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown import format 'iperf3'"), std::string::npos) << r.err;
}

TEST(Import, VllmResultBecomesAServeCase) {
  const auto r = run_ironbench({"import", "vllm", data + "vllm/vllm_sweep_opt125m_c2.json",
                                data + "vllm/vllm_all_requests_failed_opt125m.json", "--no-save", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc.at("cases").size(), 2u);
  const auto& c = doc.at("cases")[0];
  EXPECT_EQ(c.at("benchmark"), "serve");
  EXPECT_EQ(c.at("device"), "facebook/opt-125m");
  EXPECT_EQ(c.at("params"), json::parse(R"({"max_concurrency": 2, "request_rate": "inf", "num_prompts": 8})"));
  EXPECT_EQ(c.at("status"), "valid");
  EXPECT_FALSE(c.contains("time"));
  bool found = false;
  for (const auto& m : c.at("metrics")) {
    if (m.at("name") == "median_ttft_ms") {
      EXPECT_DOUBLE_EQ(m.at("value").get<double>(), 44.92285849846667);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(json::parse(c.at("notes").at("result").get<std::string>()).at("max_num_seqs"), 4);
  EXPECT_EQ(doc.at("cases")[1].at("status"), "failed");
  EXPECT_EQ(doc.at("settings").at("imported"), "vllm");
  EXPECT_NE(usage_error_of({"import", "vllm", fixtures + "write_a_gbits.txt", "--no-save"}).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(
      usage_error_of({"import", "vllm", data + "nccl-tests/all_reduce_perf_h100_16ranks_constructed.json", "--no-save"})
          .find("not a vLLM bench serve result"),
      std::string::npos);
}

TEST(Import, NcclTestsOutputBecomesCollectivesCases) {
  const auto r = run_ironbench({"import", "nccl-tests", data + "nccl-tests/all_reduce_perf_h100_16ranks.txt",
                                data + "nccl-tests/rccl_tests_2.17.9_mi300_8gpu.txt", "--no-save", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  std::map<std::string, std::size_t> per_collective;
  for (const auto& c : doc.at("cases")) {
    EXPECT_EQ(c.at("benchmark"), "collectives");
    ++per_collective[c.at("params").at("collective").get<std::string>() + " " + c.at("device").get<std::string>()];
  }
  EXPECT_EQ(per_collective["all_reduce 16 ranks"], 62u);
  EXPECT_EQ(per_collective["all_reduce 8 ranks"], 58u);
  EXPECT_EQ(per_collective["alltoall 8 ranks"], 50u);
  const auto& last = doc.at("cases")[61];
  EXPECT_EQ(last.at("params"), json::parse(R"({"collective": "all_reduce", "dtype": "fp32", "op": "sum", "root": -1,
      "size": 8589934592, "placement": "in-place", "ranks": 16})"));
  // No rank lines, no collective in the file name: the options say.
  const auto sendrecv = data + "nccl-tests/sendrecv_perf_a100_8gpu.txt";
  const auto s = run_ironbench(
      {"import", "nccl-tests", sendrecv, "--ranks", "8", "--device", "dgx-a100", "--no-save", "--json", "-"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const auto sdoc = json::parse(s.out);
  EXPECT_EQ(sdoc.at("cases")[0].at("device"), "dgx-a100");
  EXPECT_EQ(sdoc.at("cases")[0].at("params").at("ranks"), 8);
  EXPECT_EQ(sdoc.at("settings").at("ranks"), 8);
  const auto copy = make_temp_dir("ironbench-import") + "/run.log";
  std::ofstream(copy) << read_file(sendrecv);
  EXPECT_NE(usage_error_of({"import", "nccl-tests", copy, "--no-save"}).find("pass --collective NAME"),
            std::string::npos);
  const auto named =
      run_ironbench({"import", "nccl-tests", copy, "--collective", "sendrecv", "--no-save", "--json", "-"});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(usage_error_of({"import", "nccl-tests", data + "babelstream/main_omp_fp64.csv", "--no-save"})
                .find("no nccl-tests table"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"import", "vllm", sendrecv, "--ranks", "8", "--no-save"}).find("apply to nccl-tests"),
            std::string::npos);
}

TEST(Import, BabelStreamCsvBecomesStreamCases) {
  const auto r =
      run_ironbench({"import", "babelstream", data + "babelstream/main_omp_fp64.csv",
                     data + "babelstream/v4.0_omp_fp32_mibibytes.csv", "--device", "cpu", "--no-save", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc.at("cases").size(), 10u);
  const auto& copy = doc.at("cases")[0];
  EXPECT_EQ(copy.at("benchmark"), "stream");
  EXPECT_EQ(copy.at("device"), "cpu");
  EXPECT_EQ(copy.at("params"), json::parse(R"({"dtype": "fp64", "size": 8388608, "kernel": "copy"})"));
  std::map<std::string, double> metrics;
  for (const auto& m : copy.at("metrics")) metrics[m.at("name").get<std::string>()] = m.at("value").get<double>();
  EXPECT_DOUBLE_EQ(metrics.at("bandwidth_best"), 177.460);
  EXPECT_EQ(doc.at("cases")[5].at("params").at("dtype"), "fp32");
  EXPECT_NE(usage_error_of({"import", "babelstream", data + "babelstream/v5.0_omp_fp64_console.txt", "--no-save"})
                .find("without the element count"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"import", "babelstream", data + "vllm/vllm_sweep_opt125m_c2.json", "--no-save"})
                .find("no BabelStream results"),
            std::string::npos);
}

// `path` with the first `original` replaced by `replacement`, written to `dir`/`name`.
std::string edited_copy(const std::string& path, const std::string& original, const std::string& replacement,
                        const temp_dir& dir, const std::string& name) {
  auto text = read_file(path);
  const auto at = text.find(original);
  EXPECT_NE(at, std::string::npos) << original << " in " << path;
  if (at != std::string::npos) text.replace(at, original.size(), replacement);
  return dir.write(name, text).string();
}

// A line of 100,000 characters in each importer's input overflowed the stack of a recursive
// pattern (exit 139). Each is now imported, or refused in one line naming the file and line
// (exit 2).
TEST(Import, LongLinesImportOrAreRefusedWithoutACrash) {
  const temp_dir dir("ironbench-long-lines");
  const std::string long_text(100000, 'x');
  const auto rccl = data + "nccl-tests/rccl_tests_2.17.9_mi300_8gpu.txt";
  const auto version = edited_copy(rccl, "rccl-headers=22803", long_text, dir, "all_reduce_perf_version.txt");
  auto r = run_ironbench({"import", "nccl-tests", version, "--no-save", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
  EXPECT_NE(json::parse(r.out).at("cases")[0].at("notes").at("version").get<std::string>().find(long_text),
            std::string::npos);

  const auto average = edited_copy(rccl, "# Avg bus bandwidth    : 83.8755", "# Avg bus bandwidth    : 8" + long_text,
                                   dir, "all_reduce_perf_average.txt");
  EXPECT_EQ(usage_error_of({"import", "nccl-tests", average, "--no-save"}),
            "ironbench: error: " + average + ": line 48: the average bus bandwidth '8" + std::string(39, 'x') +
                "... (100001 bytes)' is not a number\n");

  const auto perftest = edited_copy(fixtures + "write_a_gbits.txt", "0.100143", "0.100143" + long_text, dir, "ib.txt");
  EXPECT_EQ(usage_error_of({"import", "perftest", perftest, "--no-save"}),
            "ironbench: error: " + perftest + ": line 36: MsgRate '0.100143" + std::string(32, 'x') +
                "... (100008 bytes)' is not a number (finite, not negative)\n");

  const auto babelstream = edited_copy(data + "babelstream/main_omp_fp64_console.txt", "Implementation: OpenMP",
                                       "Implementation: " + long_text, dir, "stream.txt");
  r = run_ironbench({"import", "babelstream", babelstream, "--no-save", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
  EXPECT_EQ(json::parse(r.out).at("cases").size(), 5u);
}

class ImportStore : public store_backend_test {};
IRONBENCH_STORE_BACKENDS(ImportStore);

// Keys the importer and the report classify as latency statistics or not, 100,000 characters
// long: one of them nearly is one ("p999...9_ttft_s"), which took the report's pattern through
// every digit (exit 139). The run is stored and reported.
TEST_P(ImportStore, LongResultKeysAreStoredAndReported) {
  const temp_dir dir("ironbench-long-keys");
  const std::string long_text(100000, 'x');
  const auto vllm = edited_copy(
      data + "vllm/vllm_sweep_opt125m_c2.json",
      "\"date\":", "\"" + long_text + "\": 1, \"p" + std::string(100000, '9') + "_ttft_s\": 2, \"date\":", dir,
      "vllm.json");
  const auto db = fresh_store((dir / "results.db").string(), "long_keys");
  auto r = run_ironbench({"import", "vllm", vllm, "--db", db, "--results-dir", dir.str(), "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
  EXPECT_EQ(json::parse(r.out).at("cases").size(), 1u);
  // The report reads the latency statistics among the result's keys, the long one included.
  r = run_ironbench({"report", "1", "--db", db, "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
  EXPECT_NE(r.out.find("median_ttft_ms"), std::string::npos);
}

// A value the tool cannot have printed is an error naming the file and line, exit 2, in every
// importer: perftest left such rows out in silence (exit 0) and the vLLM importer stored
// negative throughputs and passed on the JSON library's message for 1e400.
TEST(Import, BadValuesAreRefusedByEveryImporter) {
  const temp_dir dir("ironbench-bad-values");
  const auto ib = fixtures + "write_a_gbits.txt";
  const auto nan_row = edited_copy(ib, "52.51              52.50  \t\t   0.100143", "nan  nan  nan", dir, "nan.txt");
  EXPECT_EQ(usage_error_of({"import", "perftest", nan_row, "--no-save"}),
            "ironbench: error: " + nan_row + ": line 36: BW peak 'nan' is not a number (finite, not negative)\n");
  const auto huge_size = edited_copy(ib, " 65536 ", " 655360000000000000000000 ", dir, "huge.txt");
  EXPECT_EQ(usage_error_of({"import", "perftest", huge_size, "--no-save"}),
            "ironbench: error: " + huge_size + ": line 36: #bytes '655360000000000000000000' is beyond 64 bits\n");
  auto cut = read_file(ib);
  cut.resize(cut.find(" 131072 "));
  const auto cut_path = dir.write("cut.txt", cut).string();
  EXPECT_NE(usage_error_of({"import", "perftest", cut_path, "--no-save"})
                .find(cut_path + ": line 20: the table that starts here has no closing '-----' line"),
            std::string::npos);

  const auto vllm = data + "vllm/vllm_sweep_opt125m_c2.json";
  const auto negative = edited_copy(vllm, "\"request_throughput\": 5.859229976904171", "\"request_throughput\": -5.86",
                                    dir, "negative.json");
  EXPECT_EQ(usage_error_of({"import", "vllm", negative, "--no-save"}),
            "ironbench: error: " + negative + ": \"request_throughput\" is -5.86, a negative amount\n");
  const auto overflow =
      edited_copy(vllm, "\"mean_ttft_ms\": 217.27289337468392", "\"mean_ttft_ms\": 1e400", dir, "overflow.json");
  EXPECT_EQ(usage_error_of({"import", "vllm", overflow, "--no-save"}),
            "ironbench: error: " + overflow + ": line 24: \"mean_ttft_ms\" is 1e400, beyond the range of a number\n");
}

// A key given twice with two values (--tag a=1 --tag a=2) kept one and dropped the other in
// silence: it is a usage error naming the key, before anything is imported or stored.
TEST_P(ImportStore, OneTagKeyWithTwoValuesIsAUsageError) {
  const temp_dir dir("ironbench-import-tags");
  const auto db = fresh_store((dir / "results.db").string(), "import_tags");
  EXPECT_EQ(usage_error_of({"import", "perftest", fixtures + "write_a_gbits.txt", "--db", db, "--results-dir",
                            dir.str(), "--tag", "env=vm", "--tag", "gpu=a", "--tag", "env=baremetal"}),
            "ironbench: error: --tag env is given twice (env=vm, env=baremetal): a run carries one value per key\n");
  if (sqlite()) {
    EXPECT_FALSE(std::filesystem::exists(db));
  } else {
    EXPECT_EQ(postgres_tables(db), 0u) << "a refused import created the store's tables";
  }
  const auto same = run_ironbench({"import", "perftest", fixtures + "write_a_gbits.txt", "--no-save", "--tag", "env=vm",
                                   "--tag", "env=vm", "--json", "-"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(json::parse(same.out).at("tags"), json::parse(R"({"env": "vm"})"));
}

}  // namespace
}  // namespace ironbench::testing
