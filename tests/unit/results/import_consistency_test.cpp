// Every importer checks what a file states against what its other numbers imply, and imports
// a case whose numbers contradict each other as invalid with the contradiction as its reason:
// nccl-tests' algbw against size / time and busbw against algbw x the bus factor, vLLM's
// throughputs against tokens / duration, its latencies against each other and the duration and
// its percentiles against their order, perftest's BW average against MsgRate x #bytes,
// BabelStream's min <= avg <= max.
#include "results/import_consistency.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "core/json.hpp"
#include "import_fixtures.hpp"
#include "results/babelstream_import.hpp"
#include "results/nccl_tests_import.hpp"
#include "results/perftest_import.hpp"
#include "results/vllm_import.hpp"

namespace ironbench::results::consistency_test {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `text` with its first match of `pattern` replaced by `replacement` (which must match once).
std::string edited(const std::string& text, const std::string& pattern, const std::string& replacement) {
  const std::regex re(pattern);
  EXPECT_TRUE(std::regex_search(text, re)) << pattern;
  return std::regex_replace(text, re, replacement, std::regex_constants::format_first_only);
}

TEST(ImportConsistency, AgreementAndOrderAreCheckedWithinTheirTolerance) {
  consistency_check fine;
  fine.agree("algbw", 1.0, 1.015, "x / y", "GB/s", {0.02, 0});
  fine.ordered({{"min", 1}, {"avg", 1}, {"max", 2}}, "s");
  EXPECT_TRUE(fine.consistent());
  core::case_result untouched;
  fine.apply_to(untouched);
  EXPECT_EQ(untouched.status, core::case_status::valid);

  consistency_check bad;
  bad.agree("algbw", 1e23, 5.9e-5, "8 B / 136 us", "GB/s", {0.02, 0.01});
  bad.ordered({{"min_runtime", 2}, {"avg_runtime", 1}}, "s");
  EXPECT_EQ(bad.reason(),
            "inconsistent numbers: algbw 1e+23 GB/s contradicts 8 B / 136 us = 5.9e-05 GB/s; avg_runtime 1 s is below "
            "min_runtime 2 s");
  core::case_result c;
  c.status = core::case_status::invalid;
  c.reason = "#wrong = 3";
  bad.apply_to(c);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(c.reason.starts_with("#wrong = 3; inconsistent numbers: algbw")) << c.reason;
}

TEST(ImportConsistency, AnNcclTestsRowWhoseAlgbwContradictsSizeOverTimeIsInvalid) {
  const auto original = testing::read_fixture_file("nccl-tests", "all_reduce_perf_h100_16ranks.txt");
  // The row of 8 B: 135.8 us out of place; its algbw 0.00 becomes 1e23 GB/s.
  const auto text = edited(original, R"((\n +8 +2 +float +sum +-1 +135\.8) +0\.00)", "$1 100000000000000000000000.00");
  const auto reports = parse_nccl_tests(text, "all_reduce_perf.txt");
  ASSERT_EQ(reports.size(), 1u);
  const auto cases = nccl_tests_cases(reports[0], "all_reduce_perf.txt", {});
  ASSERT_GE(cases.size(), 2u);
  EXPECT_EQ(cases[0].status, core::case_status::invalid);
  EXPECT_TRUE(contains(cases[0].reason,
                       "inconsistent numbers: algbw 1e+23 GB/s contradicts 8 B / 135.8 us = "
                       "5.89102e-05 GB/s"))
      << cases[0].reason;
  EXPECT_EQ(cases[0].notes.at("consistency"), cases[0].reason);
  EXPECT_EQ(cases[1].status, core::case_status::valid) << "the in-place half of the row agrees";
  // The file as measured: every case agrees with itself.
  for (const auto& c :
       nccl_tests_cases(parse_nccl_tests(original, "all_reduce_perf.txt")[0], "all_reduce_perf.txt", {})) {
    EXPECT_EQ(c.status, core::case_status::valid) << c.reason;
  }
}

TEST(ImportConsistency, EveryNcclTestsFixtureAgreesWithItself) {
  for (const auto* name : {"all_reduce_perf_h100_16ranks.txt", "all_reduce_perf_h100_16ranks_constructed.json",
                           "all_reduce_perf_mi300x_8ranks_rccl.txt", "all_reduce_perf_t4_2gpu_per_iter.json",
                           "alltoall_perf_a100_8gpu_2021.log", "broadcast_perf_a100_8gpu_2021.log",
                           "rccl_tests_2.17.9_mi300_8gpu.txt", "sendrecv_perf_a100_8gpu.txt"}) {
    for (const auto& report : parse_nccl_tests(testing::read_fixture_file("nccl-tests", name), name)) {
      for (const auto& c : nccl_tests_cases(report, name, {})) {
        EXPECT_FALSE(c.notes.count("consistency")) << name << ": " << c.notes.at("consistency");
      }
    }
  }
}

TEST(ImportConsistency, AVllmThroughputThatContradictsTokensOverDurationIsInvalid) {
  auto result = json::parse(testing::read_fixture_file("vllm", "vllm_sweep_opt125m_c2.json"));
  EXPECT_EQ(vllm_cases(parse_vllm_results(result.dump(), "r.json"), "r.json")[0].status, core::case_status::valid);
  result["output_throughput"] = 9.2e18;  // 128 tokens in 1.365 s: 93.7
  auto c = vllm_cases(parse_vllm_results(result.dump(), "r.json"), "r.json")[0];
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason,
                       "inconsistent numbers: output_throughput 9.2e+18 tok/s contradicts 128 output "
                       "tokens / 1.36537 s = 93.7477 tok/s"))
      << c.reason;

  result = json::parse(testing::read_fixture_file("vllm", "vllm_sweep_opt125m_c2.json"));
  result["request_throughput"] = 58.6;
  result["p99_ttft_ms"] = 1.0;  // below the median, 44.9 ms
  c = vllm_cases(parse_vllm_results(result.dump(), "r.json"), "r.json")[0];
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason, "request_throughput 58.6 req/s contradicts 8 completed requests / 1.36537 s"))
      << c.reason;
  EXPECT_TRUE(contains(c.reason, "p99_ttft_ms 1 ms is below median_ttft_ms 44.9229 ms")) << c.reason;
}

TEST(ImportConsistency, EveryVllmFixtureAgreesWithItself) {
  for (const auto* name : {"ironbench_serve_sim_detailed.json", "vllm_all_requests_failed_opt125m.json",
                           "vllm_nightly_llama8b_sharegpt_qps1.json", "vllm_sweep_opt125m_c2.json"}) {
    for (const auto& c : vllm_cases(parse_vllm_results(testing::read_fixture_file("vllm", name), name), name)) {
      EXPECT_FALSE(c.notes.count("consistency")) << name << ": " << c.notes.at("consistency");
    }
  }
}

// busbw 1e308 where algbw 180.71 over 16 ranks implies 338.83 was stored valid.
TEST(ImportConsistency, AnNcclTestsRowWhoseBusbwContradictsAlgbwTimesTheBusFactorIsInvalid) {
  const auto original = testing::read_fixture_file("nccl-tests", "all_reduce_perf_h100_16ranks.txt");
  // The row of 8 GiB: out of place 47535 us, algbw 180.71, busbw 338.82 (= 180.71 x 2 x 15 / 16).
  const auto text =
      edited(original, R"((\n +8589934592 +2147483648 +float +sum +-1 +47535 +180\.71) +338\.82)", "$1 1e308");
  const auto cases = nccl_tests_cases(parse_nccl_tests(text, "all_reduce_perf.txt")[0], "all_reduce_perf.txt", {});
  const auto& c = cases.at(cases.size() - 2);
  ASSERT_EQ(c.params.integer("size"), 8589934592);
  ASSERT_EQ(c.params.string("placement"), "out-of-place");
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason,
                       "inconsistent numbers: busbw 1e+308 GB/s contradicts algbw 180.71 GB/s x 1.875 "
                       "(all_reduce's bus factor for 16 ranks)"))
      << c.reason;
  EXPECT_EQ(cases.back().status, core::case_status::valid) << "the in-place half agrees: " << cases.back().reason;

  // The factors: all_reduce 2(n-1)/n, all_gather (n-1)/n, broadcast 1; unknown ranks: none.
  EXPECT_DOUBLE_EQ(nccl_tests_bus_factors("all_reduce", 8).at(0), 1.75);
  EXPECT_DOUBLE_EQ(nccl_tests_bus_factors("all_gather", 4).at(0), 0.75);
  EXPECT_DOUBLE_EQ(nccl_tests_bus_factors("broadcast", 8).at(0), 1.0);
  EXPECT_TRUE(nccl_tests_bus_factors("all_reduce", 0).empty());
  EXPECT_DOUBLE_EQ(nccl_tests_max_bus_factor("all_reduce"), 2.0);
  EXPECT_DOUBLE_EQ(nccl_tests_max_bus_factor("sendrecv"), 1.0);
}

// With the ranks unknown (no preamble), busbw is held to algbw x the largest factor there is.
TEST(ImportConsistency, WithoutItsRanksABusbwBeyondAnyBusFactorIsInvalid) {
  const auto original = testing::read_fixture_file("nccl-tests", "sendrecv_perf_a100_8gpu.txt");
  auto reports = parse_nccl_tests(original, "sendrecv_perf.txt");
  ASSERT_EQ(reports.size(), 1u);
  auto& row = reports[0].rows.back();
  nccl_tests_options options;
  for (const auto& c : nccl_tests_cases(reports[0], "sendrecv_perf.txt", options)) {
    EXPECT_FALSE(c.notes.count("consistency")) << c.notes.at("consistency");
  }
  row.out_of_place.busbw_gbs = row.out_of_place.algbw_gbs * 1.5;  // sendrecv's factor is 1
  const auto cases = nccl_tests_cases(reports[0], "sendrecv_perf.txt", options);
  const auto& c = cases.at(cases.size() - 2);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason, "the largest bus factor of sendrecv")) << c.reason;
}

// mean_tpot_ms 1e12 beside an E2EL of 340 ms, an E2EL below its TTFT and a duration of 0
// were stored valid.
TEST(ImportConsistency, VllmLatenciesThatContradictEachOtherOrTheDurationAreInvalid) {
  const auto fixture = json::parse(testing::read_fixture_file("vllm", "vllm_sweep_opt125m_c2.json"));
  const auto case_of = [](const json& result) {
    return vllm_cases(parse_vllm_results(result.dump(), "r.json"), "r.json").at(0);
  };
  EXPECT_EQ(case_of(fixture).status, core::case_status::valid) << case_of(fixture).reason;

  auto result = fixture;
  result["mean_tpot_ms"] = 1e12;
  auto c = case_of(result);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason, "mean_tpot_ms 1e+12 ms exceeds the 1.36537 s duration")) << c.reason;
  EXPECT_TRUE(contains(c.reason, "(the lowest TPOT there can be)")) << c.reason;

  result = fixture;
  result["mean_e2el_ms"] = 100.0;  // its mean TTFT is 217 ms
  c = case_of(result);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason, "mean_ttft_ms 217.273 ms exceeds mean_e2el_ms 100 ms")) << c.reason;

  result = fixture;
  result["duration"] = 0.0;
  result["request_throughput"] = nullptr;
  result["output_throughput"] = nullptr;
  result["total_token_throughput"] = nullptr;
  c = case_of(result);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason, "duration 0 s with 8 requests completed")) << c.reason;

  result = fixture;
  result["mean_e2el_ms"] = 1300.0;  // 8 requests of 1.3 s, 6 at a time at most, in 1.37 s
  result["median_e2el_ms"] = 1300.0;
  result["p99_e2el_ms"] = 1300.0;
  c = case_of(result);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_TRUE(contains(c.reason, "mean_e2el_ms x 8 completed 10400 ms exceeds 6 requests in flight at most"))
      << c.reason;
}

// perftest derives the message rate from the average: a BW average that MsgRate x #bytes
// contradicts is invalid; every real output agrees with itself.
TEST(ImportConsistency, APerftestAverageThatContradictsItsMessageRateIsInvalid) {
  const auto original = testing::read_fixture_file("perftest", "write_a_gbits.txt");
  // 1024 B at 4.169397 Mpps: 34.16 Gb/s; the average becomes 3416.
  const auto text = edited(original, R"((\n +1024 +5000 +38\.67 +)34\.16)", "$1 3416.00");
  const auto cases = perftest_cases(parse_perftest(text, "w.txt"), "w.txt");
  bool found = false;
  for (const auto& c : cases) {
    if (c.params.integer("size") != 1024) {
      EXPECT_EQ(c.status, core::case_status::valid) << c.reason;
      continue;
    }
    found = true;
    EXPECT_EQ(c.status, core::case_status::invalid);
    EXPECT_TRUE(contains(c.reason,
                         "inconsistent numbers: BW average 3416 Gb/sec contradicts MsgRate 4.1694 Mpps x "
                         "1024 B"))
        << c.reason;
  }
  EXPECT_TRUE(found);
  for (const auto* name : {"read_a_mbs.txt", "read_a_mbs_2.txt", "write_D_gbits_client_rdmacm_cuda.txt",
                           "write_a_gbits.txt", "write_a_gbits_server.txt", "write_a_mbs.txt",
                           "write_bidir_a_gbits_client_ionic.txt", "write_mibs_client.txt", "write_mibs_server.txt"}) {
    for (const auto& c : perftest_cases(parse_perftest(testing::read_fixture_file("perftest", name), name), name)) {
      EXPECT_FALSE(c.notes.count("consistency")) << name << ": " << c.notes.at("consistency");
    }
  }
}

std::vector<core::case_result> cases_of_text(const std::string& text) {
  return babelstream_cases(parse_babelstream(text, "b.csv"), "b.csv");
}

TEST(ImportConsistency, ABabelStreamRowWhoseAverageIsBelowItsMinimumIsInvalid) {
  const auto original = testing::read_fixture_file("babelstream", "main_omp_fp64.csv");
  // Mul: min 9.5052e-05 s, max 0.000231105 s, average 0.000120411 s; the average becomes 1e-05 s.
  const auto text = edited(original, R"(0\.000120411)", "1e-05");
  const auto cases = babelstream_cases(parse_babelstream(text, "b.csv"), "b.csv");
  ASSERT_GE(cases.size(), 2u);
  EXPECT_EQ(cases[0].status, core::case_status::valid);
  EXPECT_EQ(cases[1].status, core::case_status::invalid);
  // That average also makes a mean rate above the best one.
  EXPECT_EQ(cases[1].reason,
            "inconsistent numbers: avg_runtime 1e-05 s is below min_runtime 9.5052e-05 s; bandwidth 1677.72 GB/s "
            "exceeds BabelStream's best rate (bytes moved / fastest time) = 176.506 GB/s");
  // Without its fastest time, a mean rate above the best one (the import_babelstream fuzz target's
  // finding: 8 MiB moved in an average 60.5 us is 138.7 GB/s, its best rate 29.1 GB/s).
  const auto no_min = cases_of_text(
      "function,num_times,n_elements,sizeof,max_GB_per_sec,max_runtime,avg_runtime\n"
      "Copy,10,1048576,4,219.098,7.4831e-05,4.548591e-05\n"
      "Dot,10,1048576,4,29.0665,6.8132e-05,6.04591e-05\n");
  ASSERT_EQ(no_min.size(), 2u);
  EXPECT_EQ(no_min[0].status, core::case_status::valid) << no_min[0].reason;
  EXPECT_EQ(no_min[1].status, core::case_status::invalid);
  EXPECT_TRUE(contains(no_min[1].reason,
                       "bandwidth 138.748 GB/s exceeds BabelStream's best rate (bytes moved / "
                       "fastest time) = 29.0665 GB/s"))
      << no_min[1].reason;
  for (const auto* name :
       {"main_omp_fp32.csv", "main_omp_fp32_gigabytes.csv", "main_omp_fp32_mibibytes_console.txt", "main_omp_fp64.csv",
        "main_omp_fp64_console.txt", "main_omp_fp64_mibibytes.csv", "main_omp_fp64_nstream.csv",
        "v4.0_omp_fp32_mibibytes.csv", "v4.0_omp_fp64.csv", "v4.0_omp_fp64_nstream_only.csv",
        "v4.0_omp_fp64_triad_only.csv", "v5.0_omp_fp32_mibibytes.csv", "v5.0_omp_fp64.csv"}) {
    for (const auto& c :
         babelstream_cases(parse_babelstream(testing::read_fixture_file("babelstream", name), name), name)) {
      EXPECT_FALSE(c.notes.count("consistency")) << name << ": " << c.notes.at("consistency");
    }
  }
}

}  // namespace
}  // namespace ironbench::results::consistency_test
