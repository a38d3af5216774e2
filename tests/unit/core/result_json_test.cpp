#include "core/result_json.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "temp_dir.hpp"

namespace ironbench::core {
namespace {

run_result sample_run() {
  run_result run;
  run.tool = json{{"name", "ironbench"}, {"version", "0.1.0"}};
  run.argv = {"ironbench", "run", "gemm"};
  run.start_time = "2026-11-21T05:00:00Z";
  run.end_time = "2026-11-21T05:01:00Z";
  run.host = json{{"hostname", "node1"}, {"environment_kind", "vm"}};
  run.devices.push_back({"cpu", device_kind::cpu, 0, "AMD EPYC", 1u << 30, json{{"threads", 2}}});
  run.settings = to_json(measurement_settings{});

  case_result c;
  c.benchmark = "gemm";
  c.device = "cpu";
  c.params.set("dtype", std::string("fp32"));
  c.params.set("M", std::int64_t{1024});
  c.params.set("ratio", 0.5);
  c.param_units["M"] = "";
  c.work.flops = 2e9;
  measurement m;
  m.samples_s = {0.01, 0.011, 0.012};
  m.batch = 1;
  m.warmup_reps = 2;
  m.warmup_s = 0.1;
  m.total_iterations = 5;
  m.stop = stop_reason::target_noise;
  m.time_s = summarize(m.samples_s);
  c.timing = m;
  c.metrics.push_back({"tflops", 0.18, "TFLOP/s", "derived"});
  c.notes["provider"] = "openblas";
  c.load = host_load{12.5, 0.5};
  c.unstable = instability{0.42, 0.3, 0.1, 3, host_load{12.5, 0.5}};
  run.cases.push_back(c);

  case_result skipped;
  skipped.benchmark = "gemm";
  skipped.device = "cuda:0";
  skipped.status = case_status::skipped;
  skipped.reason = "no GPU";
  run.cases.push_back(skipped);
  settle_run_status(run);
  return run;
}

TEST(ResultJson, RoundTripKeepsEveryField) {
  const auto run = sample_run();
  const auto document = to_json(run);
  EXPECT_EQ(document.at("schema_version"), result_schema_version);
  const auto back = run_from_json(json::parse(document.dump()));
  EXPECT_EQ(to_json(back).dump(), document.dump());
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[0].params.integer("M"), 1024);
  EXPECT_EQ(back.cases[0].params.string("dtype"), "fp32");
  EXPECT_DOUBLE_EQ(back.cases[0].params.floating("ratio"), 0.5);
  EXPECT_EQ(back.cases[0].timing->samples_s.size(), 3u);
  EXPECT_EQ(back.cases[0].timing->stop, stop_reason::target_noise);
  ASSERT_TRUE(back.cases[0].unstable.has_value());
  EXPECT_DOUBLE_EQ(back.cases[0].unstable->cv, 0.42);
  EXPECT_EQ(back.cases[0].unstable->samples, 3u);
  EXPECT_DOUBLE_EQ(back.cases[0].unstable->load->others_percent, 12.5);
  EXPECT_EQ(document.at("cases")[0].at("unstable").at("reason"), back.cases[0].unstable->describe());
  EXPECT_DOUBLE_EQ(back.cases[0].load->steal_percent, 0.5);
  EXPECT_FALSE(back.cases[1].unstable.has_value());
  EXPECT_EQ(back.cases[1].status, case_status::skipped);
  EXPECT_EQ(back.status, run_status::valid);
}

TEST(ResultJson, ParamsKeepDeclarationOrder) {
  const auto text = to_json(sample_run()).dump();
  EXPECT_LT(text.find("\"dtype\""), text.find("\"M\""));
}

TEST(ResultJson, ReadersIgnoreUnknownFields) {
  auto document = to_json(sample_run());
  document["future_field"] = {{"anything", 1}};
  document["cases"][0]["new_case_field"] = "x";
  document["cases"][0]["time"]["new_statistic"] = 3;
  const auto back = run_from_json(document);
  EXPECT_EQ(back.cases.size(), 2u);
}

TEST(ResultJson, RejectsDocumentsThatAreNotResults) {
  EXPECT_THROW((void)run_from_json(json::array()), error);
  EXPECT_THROW((void)run_from_json(json{{"cases", json::array()}}), error);
  EXPECT_THROW((void)run_from_json(json{{"schema_version", "1"}, {"cases", json::array()}}), error);
  auto bad_status = to_json(sample_run());
  bad_status["cases"][0]["status"] = "great";
  EXPECT_THROW((void)run_from_json(bad_status), error);
  auto bad_sample = to_json(sample_run());
  bad_sample["cases"][0]["time"]["samples"][0] = "fast";
  EXPECT_THROW((void)run_from_json(bad_sample), error);
}

TEST(ResultJson, ReadRunFileErrorsNameTheFile) {
  const testing::temp_dir dir("ironbench_result_json_");
  const auto garbage = dir / "garbage.json";
  std::ofstream(garbage) << "{ not json";
  const auto foreign = dir / "foreign.json";
  std::ofstream(foreign) << R"({"hello": "world"})";
  for (const auto& path : {dir / "missing.json", garbage, foreign}) {
    try {
      (void)read_run_file(path);
      FAIL() << path;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(path.filename().string()), std::string::npos) << e.what();
    }
  }
  const auto good = dir / "good.json";
  std::ofstream(good) << to_json(sample_run()).dump();
  EXPECT_EQ(read_run_file(good).cases.size(), 2u);
}

TEST(RunStatus, InvalidOrFailedCasesMakeTheRunInvalid) {
  auto run = sample_run();
  EXPECT_EQ(run.status, run_status::valid);
  run.cases[0].status = case_status::invalid;
  settle_run_status(run);
  EXPECT_EQ(run.status, run_status::invalid);
  EXPECT_EQ(run.status_reason, "1 of 2 cases invalid or failed");
  run.status = run_status::interrupted;
  settle_run_status(run);
  EXPECT_EQ(run.status, run_status::interrupted);
}

}  // namespace
}  // namespace ironbench::core
