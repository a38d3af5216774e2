// ironbench validate on a healthy GPU node: a doctor finding decides only the verdicts of the
// devices and checks it affects, and a GPU GEMM row shows the clock and power beside its number.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "doctor/finding.hpp"
#include "validate/validation.hpp"
#include "validate/validation_output.hpp"
#include "validate/verdict.hpp"

namespace ironbench::validate {
namespace {

core::device_info cpu_device() {
  core::device_info d;
  d.id = "cpu";
  d.kind = core::device_kind::cpu;
  d.name = "Intel(R) Xeon(R) Platinum 8480+";
  return d;
}

// An H200 as the run describes it: its maximum SM clock and, from NVML, its power limit.
core::device_info h200(const std::string& id = "cuda:0") {
  core::device_info d;
  d.id = id;
  d.kind = core::device_kind::cuda;
  d.name = "NVIDIA H200";
  d.properties = {{"multiprocessors", 132},
                  {"sm_clock_max_mhz", 1980},
                  {"telemetry", {{"available", true}, {"power_limit_w", 700.0}, {"default_power_limit_w", 700.0}}}};
  return d;
}

core::case_result gemm_on(const std::string& device, const std::string& dtype, double tflops) {
  core::case_result c;
  c.benchmark = "gemm";
  c.device = device;
  c.params.set("dtype", dtype);
  c.params.set("M", std::int64_t{8192});
  c.params.set("N", std::int64_t{8192});
  c.params.set("K", std::int64_t{8192});
  c.metrics.push_back({"tflops", tflops, "TFLOP/s", ""});
  return c;
}

core::case_result triad_on(const std::string& device) {
  core::case_result c;
  c.benchmark = "stream";
  c.device = device;
  c.params.set("kernel", std::string("triad"));
  c.params.set("dtype", std::string("fp64"));
  c.metrics.push_back({"bandwidth", 4000, "GB/s", ""});
  return c;
}

// What the doctor writes into a run for a finding.
json finding(const std::string& check, const std::string& severity, std::vector<std::string> affects,
             const std::string& device = "") {
  json j = {{"check", check},     {"severity", severity}, {"summary", check + " summary"},
            {"evidence", "read"}, {"affects", affects},   {"fix", check + " fix"}};
  if (!device.empty()) j["device"] = device;
  return j;
}

// The OpenBLAS finding as check_blas_kernels makes it: critical, CPU GEMM.
json blas_kernels_finding() { return finding("blas_kernels", "critical", {"gemm"}, "cpu"); }

const check_row& row_named(const std::vector<check_row>& rows, const std::string& check) {
  const auto found = std::find_if(rows.begin(), rows.end(), [&](const check_row& r) { return r.check == check; });
  EXPECT_NE(found, rows.end()) << check;
  return *found;
}

core::run_result gpu_run() {
  core::run_result run;
  run.devices = {h200()};
  run.cases.push_back(gemm_on("cuda:0", "bf16", 700));
  run.cases.push_back(triad_on("cuda:0"));
  return run;
}

TEST(FindingScope, ACpuGemmFindingDoesNotFailARunOfTheGpu) {
  auto run = gpu_run();
  run.findings = json::array({blas_kernels_finding()});
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  const auto& blas = row_named(rows, "doctor: blas_kernels");
  EXPECT_EQ(blas.result, verdict::pass);
  EXPECT_EQ(blas.device, "cpu");
  EXPECT_NE(blas.rule.find("critical: blas_kernels summary (fix: blas_kernels fix)"), std::string::npos) << blas.rule;
  EXPECT_NE(blas.rule.find("; affects no check of this run (gemm on cpu)"), std::string::npos) << blas.rule;
  EXPECT_NE(summary_verdict(rows), verdict::fail);
}

TEST(FindingScope, ACpuGemmFindingFailsARunThatMeasuredCpuGemm) {
  auto run = gpu_run();
  run.devices.push_back(cpu_device());
  run.cases.push_back(gemm_on("cpu", "fp64", 1));
  run.findings = json::array({blas_kernels_finding()});
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  const auto& blas = row_named(rows, "doctor: blas_kernels");
  EXPECT_EQ(blas.result, verdict::fail);
  EXPECT_NE(blas.rule.find("; affects gemm on cpu"), std::string::npos) << blas.rule;
  EXPECT_EQ(blas.rule.find("cuda:0"), std::string::npos) << blas.rule;
  EXPECT_EQ(summary_verdict(rows), verdict::fail);
}

TEST(FindingScope, ASkippedCaseMeasuredNothingForAFindingToAffect) {
  auto run = gpu_run();
  auto skipped = gemm_on("cpu", "bf16", 0);
  skipped.status = core::case_status::skipped;
  skipped.reason = "no bf16 GEMM in this OpenBLAS";
  run.cases.push_back(skipped);
  run.findings = json::array({blas_kernels_finding()});
  EXPECT_EQ(row_named(judge_run(run, {0.9, 0.75}, nullptr, "AVX-512"), "doctor: blas_kernels").result, verdict::pass);
}

TEST(FindingScope, AFindingOnAllOfTheHostCountsForAnyCaseAndNamesThem) {
  auto run = gpu_run();
  run.findings = json::array({finding("steal", "warning", {"all"}), finding("memory", "critical", {"all"})});
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  const auto& steal = row_named(rows, "doctor: steal");
  EXPECT_EQ(steal.result, verdict::warn);
  EXPECT_NE(steal.rule.find("; affects gemm on cuda:0, stream on cuda:0"), std::string::npos) << steal.rule;
  EXPECT_EQ(row_named(rows, "doctor: memory").result, verdict::fail);

  run.cases.clear();  // a run without cases: nothing for the finding to lower
  const auto empty = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  EXPECT_EQ(row_named(empty, "doctor: steal").result, verdict::pass);
  EXPECT_NE(row_named(empty, "doctor: steal").rule.find("affects no check of this run (all)"), std::string::npos);
}

TEST(FindingScope, AGpuFindingCountsOnlyOnItsGpuAndBenchmarks) {
  auto run = gpu_run();
  run.findings = json::array({finding("memory_errors", "critical", {"all"}, "cuda:1"),
                              finding("gpu_nic_numa", "warning", {"collectives"}, "cuda:0"),
                              finding("power_limit", "warning", {"gemm", "stream"}, "cuda:0")});
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  const auto& other_gpu = row_named(rows, "doctor: memory_errors");
  EXPECT_EQ(other_gpu.result, verdict::pass);
  EXPECT_NE(other_gpu.rule.find("affects no check of this run (all on cuda:1)"), std::string::npos);
  EXPECT_EQ(row_named(rows, "doctor: gpu_nic_numa").result, verdict::pass);  // no collectives measured
  const auto& power = row_named(rows, "doctor: power_limit");
  EXPECT_EQ(power.result, verdict::warn);
  EXPECT_NE(power.rule.find("affects gemm on cuda:0, stream on cuda:0"), std::string::npos) << power.rule;
}

TEST(FindingScope, AnInfoFindingPassesEitherWay) {
  auto run = gpu_run();
  run.findings = json::array({finding("persistence", "info", {"gemm"}, "cuda:0")});
  EXPECT_EQ(row_named(judge_run(run, {0.9, 0.75}, nullptr, "AVX-512"), "doctor: persistence").result, verdict::pass);
}

// A GEMM case of the H200 with the telemetry summary the case monitor stores.
core::case_result h200_gemm_with_telemetry() {
  auto c = gemm_on("cuda:0", "bf16", 700);
  c.telemetry = {{"available", true},
                 {"samples", 40},
                 {"sm_clock_mhz", {{"mean", 1410.4}, {"max", 1755}}},
                 {"power_w", {{"mean", 698.2}, {"max", 701}}},
                 {"throttle_reasons", {"sw_power_cap"}}};
  return c;
}

TEST(GemmEvidence, AGpuGemmRowShowsItsClockPowerAndLimit) {
  core::run_result run;
  run.devices = {h200(), cpu_device()};
  run.cases.push_back(h200_gemm_with_telemetry());
  run.cases.push_back(gemm_on("cpu", "fp64", 1));
  run.cases.push_back(triad_on("cuda:0"));
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  EXPECT_EQ(rows[0].evidence, "SM 1410 MHz (max 1980), 698 W of 700 W limit");
  EXPECT_EQ(to_json(rows[0]).value("evidence", ""), "SM 1410 MHz (max 1980), 698 W of 700 W limit");
  EXPECT_TRUE(rows[1].evidence.empty());  // a CPU case
  EXPECT_TRUE(rows[2].evidence.empty());  // not a GEMM
  EXPECT_FALSE(to_json(rows[1]).contains("evidence"));

  validation_report report;
  report.rows = rows;
  std::ostringstream console;
  write_validation_console(report, console);
  EXPECT_NE(console.str().find("evidence"), std::string::npos) << console.str();
  EXPECT_NE(console.str().find("SM 1410 MHz (max 1980), 698 W of 700 W limit"), std::string::npos);
  std::ostringstream markdown;
  write_validation_markdown(report, markdown);
  EXPECT_NE(markdown.str().find("SM 1410 MHz (max 1980), 698 W of 700 W limit"), std::string::npos);
}

TEST(GemmEvidence, TheMeasurementsMetricsWinAndMissingSensorsAreLeftOut) {
  core::run_result run;
  auto device = h200();
  device.properties.erase("sm_clock_max_mhz");
  device.properties["telemetry"].erase("power_limit_w");
  run.devices = {device};
  auto c = h200_gemm_with_telemetry();
  c.metrics.push_back({"sm_clock_mhz", 1500, "MHz", "mean SM clock during the case"});
  run.cases.push_back(c);
  auto bare = gemm_on("cuda:0", "fp16", 700);
  run.cases.push_back(bare);
  const auto rows = judge_run(run, {0.9, 0.75}, nullptr, "AVX-512");
  EXPECT_EQ(rows[0].evidence, "SM 1500 MHz, 698 W");
  EXPECT_TRUE(rows[1].evidence.empty());

  validation_report cpu_only;
  cpu_only.rows = {rows[1]};
  std::ostringstream console;
  write_validation_console(cpu_only, console);
  EXPECT_EQ(console.str().find("evidence"), std::string::npos) << "no column without evidence: " << console.str();
}

}  // namespace
}  // namespace ironbench::validate
