// Every importer checks what a file states against what its other numbers imply, and imports
// a case whose numbers contradict each other as invalid with the contradiction as its reason:
// nccl-tests' algbw against size / time, vLLM's throughputs against tokens / duration and its
// percentiles against their order, BabelStream's min <= avg <= max.
#include "results/import_consistency.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "core/json.hpp"
#include "import_fixtures.hpp"
#include "results/babelstream_import.hpp"
#include "results/nccl_tests_import.hpp"
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

TEST(ImportConsistency, ABabelStreamRowWhoseAverageIsBelowItsMinimumIsInvalid) {
  const auto original = testing::read_fixture_file("babelstream", "main_omp_fp64.csv");
  // Mul: min 9.5052e-05 s, max 0.000231105 s, average 0.000120411 s; the average becomes 1e-05 s.
  const auto text = edited(original, R"(0\.000120411)", "1e-05");
  const auto cases = babelstream_cases(parse_babelstream(text, "b.csv"), "b.csv");
  ASSERT_GE(cases.size(), 2u);
  EXPECT_EQ(cases[0].status, core::case_status::valid);
  EXPECT_EQ(cases[1].status, core::case_status::invalid);
  EXPECT_EQ(cases[1].reason, "inconsistent numbers: avg_runtime 1e-05 s is below min_runtime 9.5052e-05 s");
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
