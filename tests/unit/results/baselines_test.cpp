#include "results/baselines.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/result_json.hpp"

namespace ironbench::results {
namespace {

using param = std::pair<std::string, core::axis_value>;

// The value of `metric` in the one case of `baseline` that has `benchmark` and every param in
// `params` (a case may have more). Fails the test when no case or several cases match.
double published(const std::string& baseline, const std::string& benchmark, const std::vector<param>& params,
                 const std::string& metric) {
  const auto run = baseline_run(baseline);
  const core::case_result* found = nullptr;
  int matches = 0;
  for (const auto& c : run.cases) {
    if (c.benchmark != benchmark) continue;
    const bool all = std::all_of(params.begin(), params.end(), [&](const param& p) {
      return c.params.contains(p.first) && c.params.at(p.first) == p.second;
    });
    if (!all) continue;
    found = &c;
    ++matches;
  }
  EXPECT_EQ(matches, 1) << baseline << " " << benchmark;
  if (found == nullptr) return -1;
  const auto* m = found->find_metric(metric);
  EXPECT_NE(m, nullptr) << baseline << " " << benchmark << " " << metric;
  return m == nullptr ? -1 : m->value;
}

param p(const char* name, std::int64_t value) { return {name, value}; }
param p(const char* name, const char* value) { return {name, std::string(value)}; }

std::string stem(std::string_view file_name) { return std::string(file_name.substr(0, file_name.size() - 5)); }

TEST(Baselines, EveryEmbeddedFileParsesAndIsNamedAfterItsFile) {
  const auto files = embedded_baseline_files();
  ASSERT_GE(files.size(), 10u);
  for (const auto& file : files) {
    SCOPED_TRACE(std::string(file.file_name));
    ASSERT_TRUE(file.file_name.ends_with(".json"));
    const auto run = parse_baseline(std::string(file.text), std::string(file.file_name));
    EXPECT_EQ(run.settings.at("baseline").get<std::string>(), stem(file.file_name));
    EXPECT_NO_THROW((void)baseline_run(stem(file.file_name)));
  }
}

TEST(Baselines, ListIsSortedUniqueAndComplete) {
  const auto list = list_baselines();
  EXPECT_EQ(list.size(), embedded_baseline_files().size());
  std::set<std::string> names;
  for (const auto& b : list) {
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate baseline " << b.name;
    EXPECT_FALSE(b.title.empty()) << b.name;
    EXPECT_FALSE(b.source_text.empty()) << b.name;
    EXPECT_GT(b.cases, 0u) << b.name;
  }
  EXPECT_TRUE(std::is_sorted(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const char* expected :
       {"mi350x-training", "mi355x-8gpu-llm", "b200-8gpu-llm", "mi300x-2node-baremetal", "mi300x-2node-container",
        "mi300x-vm-1gpu", "mi300x-baremetal-1gpu", "mi300x-dell-xe9680"}) {
    EXPECT_TRUE(names.count(expected)) << expected;
  }
}

TEST(Baselines, EveryCaseNamesThePublicationAndWhereInIt) {
  for (const auto& b : list_baselines()) {
    SCOPED_TRACE(b.name);
    const auto run = baseline_run(b.name);
    const auto& source = run.settings.at("source");
    const auto title = source.at("title").get<std::string>();
    EXPECT_FALSE(title.empty());
    EXPECT_EQ(run.host.at("source"), source);
    // The publication, never a local file.
    for (const auto& [key, value] : source.items()) {
      const auto text = value.get<std::string>();
      EXPECT_NE(text.front(), '/') << key;
      EXPECT_EQ(text.find(".txt"), std::string::npos) << key;
    }
    if (source.contains("url")) {
      EXPECT_EQ(source.at("url").get<std::string>().rfind("https://", 0), 0u);
    }
    for (const auto& c : run.cases) {
      SCOPED_TRACE(c.benchmark + " " + c.params.label());
      ASSERT_TRUE(c.notes.count("source"));
      const auto& note = c.notes.at("source");
      EXPECT_NE(note.find(title), std::string::npos);
      EXPECT_GT(note.size(), b.source_text.size() + 2) << "no 'where'";
      EXPECT_EQ(c.status, core::case_status::valid);
      EXPECT_FALSE(c.timing.has_value());
      EXPECT_FALSE(c.metrics.empty());
      EXPECT_FALSE(c.device.empty());
    }
  }
}

TEST(Baselines, RunLayout) {
  const auto run = baseline_run("mi350x-training");
  EXPECT_EQ(run.tool.at("name"), "published reference");
  EXPECT_EQ(run.settings.at("baseline"), "mi350x-training");
  EXPECT_EQ(run.host.at("gpu"), "AMD Instinct MI350X");
  EXPECT_EQ(run.host.at("gpus"), 8);
  EXPECT_EQ(run.start_time, "2026-01-08T00:00:00Z");
  EXPECT_EQ(run.end_time, run.start_time);
  EXPECT_TRUE(run.devices.empty());
  EXPECT_EQ(run.status, core::run_status::valid);
  const auto& gemm = run.cases.front();
  EXPECT_EQ(gemm.benchmark, "gemm");
  EXPECT_EQ(gemm.device, "MI350X");
  EXPECT_TRUE(std::holds_alternative<std::int64_t>(gemm.params.at("M")));
  EXPECT_TRUE(gemm.notes.count("note"));

  // A month-only date starts on the first; "ref:" is accepted.
  EXPECT_EQ(baseline_run("ref:mi355x-8gpu-llm").start_time, "2025-06-01T00:00:00Z");

  // Sizes carry their unit, as ironbench's own collectives cases do.
  const auto rccl = baseline_run("mi300x-2node-container");
  EXPECT_EQ(rccl.cases.front().param_units.at("size"), "B");

  // The run survives the JSON result format.
  const auto back = core::run_from_json(core::to_json(run), "baseline");
  ASSERT_EQ(back.cases.size(), run.cases.size());
  EXPECT_EQ(back.cases[3].params, run.cases[3].params);
  EXPECT_DOUBLE_EQ(back.cases[3].metrics.front().value, run.cases[3].metrics.front().value);
}

// Numbers as the reports print them.
TEST(Baselines, PublishedNumbersMi350x) {
  const std::string b = "mi350x-training";
  EXPECT_EQ(published(b, "gemm", {p("timing", "20-iteration loop"), p("M", 8192)}, "tflops"), 1019);
  EXPECT_EQ(published(b, "gemm", {p("timing", "20-iteration loop"), p("M", 4096)}, "tflops"), 775);
  EXPECT_EQ(published(b, "gemm", {p("timing", "20-iteration loop"), p("M", 16384)}, "time_20_iter_s"), 0.172);
  EXPECT_EQ(
      published(b, "gemm", {p("provider", "hipblaslt"), p("dtype", "bf16"), p("M", 8192), p("N", 8192), p("K", 8192)},
                "tflops"),
      1104);
  EXPECT_EQ(
      published(b, "gemm", {p("provider", "hipblaslt"), p("dtype", "fp16"), p("M", 16384), p("N", 8192), p("K", 1280)},
                "tflops"),
      863);
  EXPECT_EQ(
      published(b, "gemm", {p("provider", "hipblaslt"), p("dtype", "fp16"), p("M", 16384), p("N", 1024), p("K", 8192)},
                "time_ms"),
      0.280);
  EXPECT_EQ(published(b, "gemm", {p("provider", "rocblas"), p("M", 8192)}, "tflops"), 1206);
  EXPECT_EQ(published(b, "gemm_summary", {p("dtype", "bf16")}, "tflops_mean"), 1027);
  EXPECT_EQ(published(b, "train_mlp", {}, "samples_per_s"), 124517);
  EXPECT_EQ(published(b, "train_gpt", {p("model", "small")}, "tokens_per_s"), 950586);
  EXPECT_EQ(published(b, "train_gpt", {p("model", "7b"), p("batch", 8), p("seq_len", 1024)}, "tflops"), 578.3);
  EXPECT_EQ(published(b, "train_gpt", {p("model", "13b"), p("gpus", 8)}, "memory_per_gpu_gb"), 157);
  EXPECT_EQ(published(b, "ddp_scaling", {p("gpus", 8)}, "scaling_efficiency"), 48.3);
  EXPECT_EQ(published(b, "ddp_scaling", {p("gpus", 4)}, "tokens_per_s"), 62813);
  EXPECT_EQ(published(b, "train_finetune", {p("dtype", "fp8")}, "tokens_per_s_per_gpu"), 20497);
  EXPECT_EQ(published(b, "train_lora", {p("model", "Qwen3-8B")}, "memory_per_gpu_gb"), 72.65);
  EXPECT_EQ(published(b, "train_lora", {p("model", "Qwen3-8B")}, "loss_step_11"), 1.765);
  EXPECT_EQ(published("mi300x-gemm-cited", "gemm_summary", {p("dtype", "bf16")}, "tflops"), 620);
  EXPECT_EQ(published("h100-gemm-cited", "gemm_summary", {p("dtype", "fp16")}, "tflops"), 990);
}

TEST(Baselines, PublishedNumbersMi355xAndB200) {
  EXPECT_EQ(published("mi355x-8gpu-llm", "train_llm", {p("model", "Llama3-8B")}, "tokens_per_s_per_gpu"), 31190);
  EXPECT_EQ(
      published("mi355x-8gpu-llm", "train_llm", {p("model", "Llama3-70B"), p("dtype", "bf16")}, "tokens_per_s_per_gpu"),
      2154);
  EXPECT_EQ(published("mi355x-8gpu-llm", "train_lora", {p("model", "Llama2-70B")}, "time_to_train_min"), 9.96);
  EXPECT_EQ(published("mi355x-8gpu-llm", "serve_itl_limit", {p("itl_limit_ms", 30)}, "max_concurrency"), 64);
  EXPECT_EQ(published("b200-8gpu-llm", "train_llm", {p("model", "Llama3-8B")}, "tokens_per_s_per_gpu"), 30411);
  EXPECT_EQ(published("b200-8gpu-llm", "train_llm", {p("model", "Llama3-70B")}, "tokens_per_s_per_gpu"), 1918);
  EXPECT_EQ(published("b200-8gpu-llm", "train_lora", {p("model", "Llama2-70B")}, "time_to_train_min"), 11.209);
  EXPECT_EQ(published("b200-8gpu-llm", "serve_itl_limit", {}, "max_concurrency"), 32);
  EXPECT_EQ(published("b200-8gpu-llm", "software_license", {}, "usd_per_gpu_year"), 4000);
  EXPECT_EQ(published("mi300x-8gpu-mlperf-lora", "train_lora", {p("gpus", 8)}, "time_to_train_min"), 29.25);
  EXPECT_EQ(published("azure-nd-mi300x-v5-price", "cloud_price", {p("region", "West US")}, "usd_per_hour"), 62.853);
  EXPECT_EQ(published("azure-nd-h100-v5-price", "cloud_price", {p("region", "East US 2")}, "usd_per_hour"), 98.32);
  EXPECT_EQ(published("azure-nd-h200-v5-price", "cloud_price", {p("region", "East US 2")}, "usd_per_hour"), 84.80);
}

TEST(Baselines, PublishedNumbersMi300x) {
  for (const char* b : {"mi300x-2node-baremetal", "mi300x-2node-container"}) {
    EXPECT_EQ(published(b, "collectives", {p("collective", "all_reduce"), p("size", std::int64_t{16} << 30)}, "busbw"),
              350);
    EXPECT_EQ(published(b, "ib_write_bw", {p("direction", "bidirectional")}, "bw_average"), 726);
  }
  EXPECT_EQ(published("mi300x-vm-1gpu", "train_lora", {p("model", "Qwen2-0.5B")}, "gpu_utilization_min"), 95);
  EXPECT_EQ(published("mi300x-baremetal-1gpu", "train_lora", {p("model", "Qwen2-0.5B")}, "gpu_utilization_max"), 100);
  EXPECT_EQ(published("mi300x-dell-xe9680", "model_memory", {p("model", "Llama-3.1-405B")}, "weights_gb"), 810);
  EXPECT_EQ(published("mi300x-dell-xe9680", "train_lora", {p("model", "Mixtral-8x7B-Instruct-v0.1")},
                      "tokens_per_s_speedup_vs_batch_1"),
            6);
}

TEST(Baselines, UnknownNameListsTheKnownOnesInOneLine) {
  try {
    (void)baseline_run("ref:no-such-system");
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no-such-system"), std::string::npos);
    EXPECT_NE(message.find("mi350x-training"), std::string::npos);
    EXPECT_NE(message.find("b200-8gpu-llm"), std::string::npos);
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

json minimal_baseline() {
  return json::parse(R"({
    "schema_version": 1, "name": "test-node", "title": "A test node",
    "source": {"title": "A report", "publisher": "Someone", "date": "2025-07-15", "url": "https://example.org/report"},
    "hardware": {"gpu": "Test GPU", "gpus": 1},
    "cases": [{"benchmark": "gemm", "params": {"dtype": "fp16", "M": 4096, "N": 4096, "K": 4096},
               "metrics": [{"name": "tflops", "value": 775, "unit": "TFLOP/s"}], "where": "table 1"}]})");
}

TEST(Baselines, MinimalDocument) {
  const auto run = parse_baseline(minimal_baseline().dump(), "test.json");
  ASSERT_EQ(run.cases.size(), 1u);
  EXPECT_EQ(run.cases[0].device, "Test GPU");  // defaults to hardware.gpu
  EXPECT_EQ(run.cases[0].notes.at("source"), "\"A report\" (Someone, 2025-07-15) https://example.org/report; table 1");
  EXPECT_FALSE(run.cases[0].notes.count("note"));
  EXPECT_EQ(run.cases[0].params.integer("M"), 4096);
  EXPECT_EQ(run.tool.at("source"), "\"A report\" (Someone, 2025-07-15) https://example.org/report");
}

TEST(Baselines, BadLayoutsAreOneLineErrorsNamingOriginAndField) {
  using edit = std::function<void(json&)>;
  const std::vector<std::pair<edit, std::string>> cases = {
      {[](json& d) { d["schema_version"] = 2; }, "schema_version: expected 1"},
      {[](json& d) { d["schema_version"] = "1"; }, "schema_version: expected 1"},
      {[](json& d) { d.erase("name"); }, "name: missing"},
      {[](json& d) { d["name"] = "Test Node"; }, "name: 'Test Node' may hold only"},
      {[](json& d) { d.erase("title"); }, "title: missing"},
      {[](json& d) { d.erase("source"); }, "source: missing"},
      {[](json& d) { d["source"].erase("title"); }, "source.title: missing"},
      {[](json& d) { d["source"]["title"] = ""; }, "source.title: must not be empty"},
      {[](json& d) { d["source"]["date"] = "July 2025"; }, "source.date: 'July 2025' is not YYYY-MM"},
      {[](json& d) { d["source"]["date"] = "2025-13"; }, "source.date"},
      {[](json& d) { d["source"]["file"] = "x"; }, "source.file: unknown field"},
      {[](json& d) { d["hardware"] = "8 GPUs"; }, "hardware: expected an object"},
      {[](json& d) { d["cases"] = json::array(); }, "cases: expected a non-empty array"},
      {[](json& d) { d["cases"][0].erase("benchmark"); }, "cases[0].benchmark: missing"},
      {[](json& d) { d["cases"][0].erase("params"); }, "cases[0].params: missing"},
      {[](json& d) { d["cases"][0]["params"]["M"] = true; }, "cases[0].params.M: expected an integer"},
      {[](json& d) { d["cases"][0]["params"]["M"] = json::array(); }, "cases[0].params.M: expected an integer"},
      {[](json& d) { d["cases"][0]["metrics"] = json::array(); }, "cases[0].metrics: expected a non-empty array"},
      {[](json& d) { d["cases"][0]["metrics"][0]["value"] = "775"; }, "cases[0].metrics[0].value: expected a number"},
      {[](json& d) { d["cases"][0]["metrics"][0].erase("value"); }, "cases[0].metrics[0].value: missing"},
      {[](json& d) { d["cases"][0]["metrics"][0].erase("unit"); }, "cases[0].metrics[0].unit: missing"},
      {[](json& d) { d["cases"][0]["metrics"][0].erase("name"); }, "cases[0].metrics[0].name: missing"},
      {[](json& d) { d["cases"][0]["metrics"].push_back(d["cases"][0]["metrics"][0]); },
       "cases[0].metrics[1].name: duplicate metric 'tflops'"},
      {[](json& d) { d["cases"][0].erase("where"); }, "cases[0].where: missing"},
      {[](json& d) { d["cases"][0]["metric"] = 1; }, "cases[0].metric: unknown field"},
      {[](json& d) { d["cases"].push_back(d["cases"][0]); }, "cases[1]: duplicate case"},
      {[](json& d) { d["extra"] = 1; }, "extra: unknown field"},
  };
  for (const auto& [change, expected] : cases) {
    auto doc = minimal_baseline();
    change(doc);
    SCOPED_TRACE(expected);
    try {
      (void)parse_baseline(doc.dump(), "bad.json");
      ADD_FAILURE() << "no exception";
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("bad.json: ", 0), 0u) << message;
      EXPECT_NE(message.find(expected), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  EXPECT_THROW((void)parse_baseline("{\"schema_version\": 1,", "broken.json"), usage_error);
  try {
    (void)parse_baseline("[1, 2", "broken.json");
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json: not valid JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_baseline("[]", "array.json"), usage_error);
}

}  // namespace
}  // namespace ironbench::results
