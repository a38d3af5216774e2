// ironbench validate's parts: the expected-values table for every GPU model it names and the
// CPU classes, partition scaling, the verdict rules, the rows of a run, and expectations from
// reference runs.
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "validate/expected_values.hpp"
#include "validate/node_table.hpp"
#include "validate/run_expectations.hpp"
#include "validate/validation.hpp"
#include "validate/validation_suite.hpp"
#include "validate/verdict.hpp"

namespace ironbench::validate {
namespace {

core::case_result gemm_case(const std::string& device, const std::string& dtype, double tflops,
                            double peak_percent = 0) {
  core::case_result c;
  c.benchmark = "gemm";
  c.device = device;
  c.params.set("dtype", dtype);
  c.params.set("M", std::int64_t{4096});
  c.params.set("N", std::int64_t{4096});
  c.params.set("K", std::int64_t{4096});
  c.metrics.push_back({"tflops", tflops, "TFLOP/s", ""});
  if (peak_percent > 0) c.metrics.push_back({"peak_percent", peak_percent, "%", ""});
  return c;
}

core::case_result triad_case(const std::string& device, double gb_per_s) {
  core::case_result c;
  c.benchmark = "stream";
  c.device = device;
  c.params.set("kernel", std::string("triad"));
  c.params.set("dtype", std::string("fp64"));
  c.metrics.push_back({"bandwidth", gb_per_s, "GB/s", ""});
  return c;
}

core::device_info gpu(const std::string& name, int units, core::device_kind kind = core::device_kind::cuda) {
  core::device_info d;
  d.id = kind == core::device_kind::cuda ? "cuda:0" : "hip:0";
  d.kind = kind;
  d.name = name;
  d.properties = {{"multiprocessors", units}};
  return d;
}

TEST(ExpectedValues, EveryGpuTheIssueNamesHasGemmAndStreamExpectationsWithSources) {
  const std::vector<std::pair<std::string, int>> gpus = {
      {"NVIDIA H100 80GB HBM3", 132}, {"NVIDIA H100 PCIe", 114},    {"NVIDIA H200", 132},
      {"NVIDIA B200", 148},           {"NVIDIA GB200", 148},        {"NVIDIA A100-SXM4-80GB", 108},
      {"NVIDIA L40S", 142},           {"AMD Instinct MI300X", 304}, {"AMD Instinct MI325X", 304},
      {"AMD Instinct MI350X", 256},   {"AMD Instinct MI355X", 256}};
  for (const auto& [name, units] : gpus) {
    const auto device = gpu(name, units);
    const auto bf16 = table_expectation(gemm_case("cuda:0", "bf16", 1), device, "AVX-512");
    ASSERT_TRUE(bf16.has_value()) << name;
    EXPECT_GT(bf16->value, 100) << name;
    EXPECT_EQ(bf16->unit, "TFLOP/s");
    EXPECT_FALSE(bf16->source.empty()) << name;
    const auto triad = table_expectation(triad_case("cuda:0", 1), device, "AVX-512");
    ASSERT_TRUE(triad.has_value()) << name;
    EXPECT_GT(triad->value, 500) << name;
    EXPECT_EQ(triad->unit, "GB/s");
  }
  const auto h100 = table_expectation(gemm_case("cuda:0", "bf16", 1), gpu("NVIDIA H100 80GB HBM3", 132), "");
  EXPECT_DOUBLE_EQ(h100->value, 720);  // the published measurement
  EXPECT_NE(h100->source.find("SemiAnalysis"), std::string::npos);
  const auto pcie = table_expectation(gemm_case("cuda:0", "bf16", 1), gpu("NVIDIA H100 PCIe", 114), "");
  EXPECT_NEAR(pcie->value, 756 * 0.728, 1e-9);  // datasheet x the measured efficiency
  const auto h100_triad = table_expectation(triad_case("cuda:0", 1), gpu("NVIDIA H100 80GB HBM3", 132), "");
  EXPECT_NEAR(h100_triad->value, 3350 * 0.9, 1e-9);
  EXPECT_FALSE(table_expectation(gemm_case("cuda:0", "bf16", 1), gpu("Mystery GPU", 10), "").has_value());
  EXPECT_FALSE(table_expectation(gemm_case("cuda:0", "fp64", 1), gpu("NVIDIA H100 80GB HBM3", 132), "").has_value());
}

TEST(ExpectedValues, APartitionExpectsItsShareOfTheChip) {
  // A MIG 1g instance of an H100 has 16 of the 132 SMs; an MI300X CPX partition 38 of 304 CUs.
  const auto mig = table_expectation(gemm_case("cuda:0", "bf16", 1), gpu("NVIDIA H100 80GB HBM3 MIG 1g.10gb", 16), "");
  EXPECT_NEAR(mig->value, 720.0 * 16 / 132, 1e-9);
  EXPECT_NE(mig->source.find("scaled to this partition's 16 of 132 units"), std::string::npos);
  const auto cpx =
      table_expectation(triad_case("hip:0", 1), gpu("AMD Instinct MI300X", 38, core::device_kind::hip), "");
  EXPECT_NEAR(cpx->value, 5300 * 0.8 * 38 / 304, 1e-9);
}

TEST(ExpectedValues, CpusExpectAFractionOfTheirPeakModel) {
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.kind = core::device_kind::cpu;
  // 0.1 TFLOP/s at 50 % of the peak model: the peak is 0.2, half of it expected.
  const auto e = table_expectation(gemm_case("cpu", "fp64", 0.1, 50), cpu, "AVX-512");
  ASSERT_TRUE(e.has_value());
  EXPECT_NEAR(e->value, 0.1, 1e-12);
  EXPECT_NE(e->source.find("50 % of the CPU peak model"), std::string::npos);
  EXPECT_FALSE(table_expectation(gemm_case("cpu", "fp64", 0.1, 50), cpu, "SSE").has_value());  // no class
  EXPECT_FALSE(table_expectation(triad_case("cpu", 40), cpu, "AVX-512").has_value());          // no DRAM model
}

// The H200 node's CPU (16 vCPUs): with OpenBLAS on the right kernels, 0.511 TFLOP/s fp64 was
// 36 % of the peak model (it FAILed) but over half of a measured all-core FMA rate of under
// 1 TFLOP/s would pass. Wrong kernels (Prescott, 0.10 TFLOP/s) fail against either.
TEST(ExpectedValues, CpusExpectAFractionOfTheirMeasuredFmaRateWhereThereIsOne) {
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.kind = core::device_kind::cpu;
  cpu.properties["measured_flops"] = {
      {"fp64", {{"flops_per_second", 0.9e12}, {"source", "16 threads at once x 56.3 GFLOP/s (AVX-512 FMA)"}}},
      {"fp32", {{"flops_per_second", 1.8e12}, {"source", "16 threads; fp32 at twice fp64"}}}};
  const auto e = table_expectation(gemm_case("cpu", "fp64", 0.511, 36), cpu, "AVX-512");
  ASSERT_TRUE(e.has_value());
  EXPECT_NEAR(e->value, 0.45, 1e-9);  // half of the measured 0.9, not of the 1.4 model
  EXPECT_NE(e->source.find("50 % of the measured FMA rate"), std::string::npos) << e->source;
  EXPECT_NE(e->source.find("16 threads at once"), std::string::npos) << e->source;
  EXPECT_NEAR(table_expectation(gemm_case("cpu", "fp32", 0.9, 31), cpu, "AVX-512")->value, 0.9, 1e-9);

  const auto rules = table_rules();
  check_row healthy, prescott;
  healthy.measured = 0.511;
  healthy.expected = e;
  judge(healthy, rules);
  EXPECT_EQ(healthy.result, verdict::pass);
  prescott.measured = 0.10;
  prescott.expected = e;
  judge(prescott, rules);
  EXPECT_EQ(prescott.result, verdict::fail);

  // A measurement that is missing or not a number: the peak model, as before.
  cpu.properties["measured_flops"]["fp64"]["flops_per_second"] = nullptr;
  const auto model = table_expectation(gemm_case("cpu", "fp64", 0.1, 50), cpu, "AVX-512");
  ASSERT_TRUE(model.has_value());
  EXPECT_NE(model->source.find("of the CPU peak model"), std::string::npos);
}

TEST(Verdicts, TheRulesAndTheSummary) {
  const verdict_rules rules{0.9, 0.75};
  const auto judged = [&](double measured) {
    check_row row;
    row.measured = measured;
    row.expected = expectation{100, "GB/s", "s", "table"};
    judge(row, rules);
    return row;
  };
  EXPECT_EQ(judged(95).result, verdict::pass);
  EXPECT_EQ(judged(90).result, verdict::pass);  // at the threshold
  EXPECT_EQ(judged(89.9).result, verdict::warn);
  EXPECT_EQ(judged(75).result, verdict::warn);
  EXPECT_EQ(judged(74.9).result, verdict::fail);
  EXPECT_EQ(judged(80).rule, "0.80 x expected < 0.90: WARN");
  std::vector<check_row> rows{judged(95), judged(80)};
  EXPECT_EQ(summary_verdict(rows), verdict::warn);
  EXPECT_EQ(exit_code_of(summary_verdict(rows)), 1);
  rows.push_back(judged(10));
  EXPECT_EQ(exit_code_of(summary_verdict(rows)), 2);
  check_row skipped;
  skipped.result = verdict::skip;
  EXPECT_EQ(exit_code_of(summary_verdict({judged(99), skipped})), 0);
}

// A run whose one device is the host CPU, with no case yet.
core::run_result run_on_the_cpu() {
  core::run_result run;
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.kind = core::device_kind::cpu;
  run.devices = {cpu};
  return run;
}

TEST(Verdicts, ARunGivesARowPerCaseAndPerDoctorCheck) {
  auto run = run_on_the_cpu();
  run.cases.push_back(gemm_case("cpu", "fp64", 0.1, 50));   // expected 0.1: PASS
  run.cases.push_back(gemm_case("cpu", "fp32", 0.05, 15));  // 15 % of peak, 50 % expected: FAIL
  auto broken = triad_case("cpu", 40);
  broken.status = core::case_status::invalid;
  broken.reason = "verification failed at element 3";
  run.cases.push_back(broken);
  auto skipped = gemm_case("cpu", "bf16", 0);
  skipped.status = core::case_status::skipped;
  skipped.reason = "no bf16 GEMM in this OpenBLAS";
  run.cases.push_back(skipped);
  run.findings = json::array({{{"check", "cpu_governor"},
                               {"severity", "warning"},
                               {"summary", "powersave"},
                               {"evidence", "e"},
                               {"affects", {"all"}},
                               {"fix", "performance"}}});
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  ASSERT_EQ(rows.size(), 4U + 21U);  // the cases, then every doctor check
  EXPECT_EQ(rows[0].result, verdict::pass);
  EXPECT_EQ(rows[1].result, verdict::fail);
  EXPECT_EQ(rows[2].result, verdict::fail);
  EXPECT_EQ(rows[2].rule, "invalid: verification failed at element 3");
  EXPECT_EQ(rows[3].result, verdict::skip);
  const auto governor =
      std::find_if(rows.begin(), rows.end(), [](const check_row& r) { return r.check == "doctor: cpu_governor"; });
  ASSERT_NE(governor, rows.end());
  EXPECT_EQ(governor->result, verdict::warn);
  EXPECT_EQ(rows[0].check, "gemm fp64 4096x4096x4096");
  EXPECT_EQ(summary_verdict(rows), verdict::fail);
}

TEST(Verdicts, AnUnstableCaseThatWouldPassWarnsAndALowOneStillFails) {
  auto run = run_on_the_cpu();
  run.cases.push_back(gemm_case("cpu", "fp64", 0.1, 50));   // would PASS
  run.cases.push_back(gemm_case("cpu", "fp32", 0.05, 15));  // FAILs anyway
  for (auto& c : run.cases) c.unstable = core::instability{0.9, 0.7, 0.5, 20, core::host_load{70, 0}};
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  EXPECT_EQ(rows[0].result, verdict::warn);
  EXPECT_NE(rows[0].rule.find(": PASS; unstable: robust CV 70 % (CV 90 %) over 20 samples"), std::string::npos)
      << rows[0].rule;
  EXPECT_NE(rows[0].rule.find("other processes used 70 %"), std::string::npos) << rows[0].rule;
  EXPECT_EQ(rows[1].result, verdict::fail);
  EXPECT_NE(rows[1].rule.find("FAIL; unstable: robust CV 70 %"), std::string::npos) << rows[1].rule;
}

TEST(RunExpectations, APublishedBaselineAndAGoldenNodesRuns) {
  const auto published = load_run_expectations("ref:h100-gemm-cited", 1.0, "");
  const auto bf16 = published.find(gemm_case("cuda:0", "bf16", 700));
  ASSERT_TRUE(bf16.has_value());  // its gemm_summary stands for gemm
  EXPECT_DOUBLE_EQ(bf16->value, 720);
  EXPECT_EQ(bf16->origin, "ref:h100-gemm-cited");
  EXPECT_FALSE(published.find(gemm_case("cuda:0", "fp8", 700)).has_value());

  std::vector<core::run_result> golden(3);
  const double values[] = {10.0, 12.0, 30.0};
  for (int i = 0; i < 3; ++i) golden[i].cases.push_back(triad_case("cpu", values[i]));
  const run_expectations fleet(golden, "tag:fleet=golden", 0.95);
  const auto triad = fleet.find(triad_case("cpu", 11));
  ASSERT_TRUE(triad.has_value());
  EXPECT_DOUBLE_EQ(triad->value, 12 * 0.95);  // the median, not the mean
  EXPECT_NE(triad->source.find("median of 3 matching case(s) of tag:fleet=golden x 0.95"), std::string::npos);
  EXPECT_FALSE(fleet.find(triad_case("cuda:0", 11)).has_value());  // another device

  EXPECT_THROW((void)load_run_expectations("golden", 1.0, ""), usage_error);
  EXPECT_THROW((void)load_run_expectations("ref:h100-gemm-cited", 0, ""), usage_error);
  EXPECT_THROW((void)load_run_expectations("ref:no-such-baseline", 1.0, ""), usage_error);
}

TEST(NodeTable, NodesBelowTheMedianAreNamedAndTheWorstVerdictWins) {
  EXPECT_EQ(node_labels({"a", "b", "a"}), (std::vector<std::string>{"a (rank 0)", "b", "a (rank 2)"}));
  const auto node = [](const std::string& name, double triad, const std::string& verdict) {
    return node_report{name, json{{"verdict", verdict},
                                  {"checks", json::array({{{"check", "stream triad fp64 1 GiB"},
                                                           {"device", "cuda:0"},
                                                           {"measured", triad},
                                                           {"verdict", verdict}},
                                                          {{"check", "doctor: iommu"}, {"verdict", "PASS"}}})}}};
  };
  const auto table = merge_nodes({node("n1", 3000, "PASS"), node("n2", 2950, "PASS"), node("n3", 2400, "WARN")});
  ASSERT_EQ(table.slow.size(), 1U);
  EXPECT_EQ(table.slow[0].node, "n3");
  EXPECT_DOUBLE_EQ(table.slow[0].median, 2950);
  EXPECT_EQ(table.overall, verdict::warn);
  std::ostringstream text;
  write_node_table(table, text);
  EXPECT_NE(text.str().find("n3: stream triad fp64 1 GiB on cuda:0 2400 against a median of 2950 (81 %)"),
            std::string::npos)
      << text.str();
  EXPECT_TRUE(merge_nodes({node("n1", 3000, "PASS"), node("n2", 2900, "PASS")}).slow.empty());
}

TEST(ValidationSuite, LevelsParseAndGrowInTime) {
  EXPECT_EQ(parse_level("quick"), level::quick);
  EXPECT_EQ(parse_level("long"), level::long_run);
  EXPECT_THROW((void)parse_level("fast"), usage_error);
  EXPECT_LT(settings_of(level::quick).max_time_s, settings_of(level::standard).max_time_s);
  EXPECT_LT(settings_of(level::standard).max_time_s, settings_of(level::long_run).max_time_s);
  EXPECT_NO_THROW((void)table_rules());
  EXPECT_EQ(table_rules().warn_below, 0.9);
  EXPECT_EQ(table_rules().fail_below, 0.75);
}

// Four ranks on a 24 GB host: each has 6 GiB, and three 2 GiB arrays would not fit.
TEST(ValidationSuite, CpuStreamArraysFitTheMemoryThisRankMayUse) {
  const std::int64_t gib = std::int64_t{1} << 30;
  EXPECT_EQ(cpu_stream_size(2 * gib, 24ull << 30), 2 * gib);                               // alone: the default
  EXPECT_EQ(cpu_stream_size(2 * gib, 6ull << 30), gib);                                    // a quarter: 3 GiB of 4.8
  EXPECT_EQ(cpu_stream_size(2 * gib, 0), 2 * gib);                                         // unknown memory: as wanted
  EXPECT_EQ(cpu_stream_size(2 * gib, 1ull << 20), std::int64_t{64} << 20);                 // never below 64 MiB
  EXPECT_EQ(cpu_stream_size(std::int64_t{16} << 20, 1ull << 20), std::int64_t{16} << 20);  // nor above wanted
}

TEST(ValidationSuite, ManyCoreCpusGetALargerGemm) {
  EXPECT_EQ(cpu_gemm_size(1024, 1), 1024);
  EXPECT_EQ(cpu_gemm_size(1024, 2), 1024);
  EXPECT_EQ(cpu_gemm_size(1024, 7), 1024);
  EXPECT_EQ(cpu_gemm_size(1024, 8), 2048);
  EXPECT_EQ(cpu_gemm_size(1024, 16), 2048);  // the H200 node's 16 vCPUs
  EXPECT_EQ(cpu_gemm_size(1024, 32), 4096);
  EXPECT_EQ(cpu_gemm_size(2048, 16), 2048);
  EXPECT_EQ(cpu_gemm_size(2048, 192), 8192);
  EXPECT_EQ(cpu_gemm_size(2048, 100000), 8192);  // bounded
}

}  // namespace
}  // namespace ironbench::validate
