#include "results/vllm_import.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "import_fixtures.hpp"
#include "usage_error_of.hpp"

namespace ironbench::results {
namespace {

using testing::expect_same_cases;
using testing::metric;
using testing::round_trip;

std::string read_fixture(const std::string& name) { return testing::read_fixture_file("vllm", name); }

std::vector<core::case_result> import_fixture(const std::string& name) {
  return vllm_cases(parse_vllm_results(read_fixture(name), name), name);
}

TEST(VllmImport, SweepPointOfVllmBenchServe) {
  const auto results = parse_vllm_results(read_fixture("vllm_sweep_opt125m_c2.json"), "x");
  ASSERT_EQ(results.size(), 1u);
  const auto& r = results[0];
  EXPECT_EQ(r.backend, "openai");
  EXPECT_EQ(r.model_id, "facebook/opt-125m");
  EXPECT_EQ(r.num_prompts, 8);
  EXPECT_EQ(r.request_rate, "inf");
  EXPECT_EQ(r.max_concurrency, 2);
  EXPECT_EQ(r.completed, 8);
  EXPECT_EQ(r.failed, 0);
  EXPECT_DOUBLE_EQ(*r.duration_s, 1.3653671270003542);
  EXPECT_EQ(r.values.count("request_goodput"), 0u);  // null
  EXPECT_EQ(r.requests_detailed, 0u);

  const auto cases = import_fixture("vllm_sweep_opt125m_c2.json");
  ASSERT_EQ(cases.size(), 1u);
  const auto& c = cases[0];
  EXPECT_EQ(c.benchmark, "serve");
  EXPECT_EQ(c.device, "facebook/opt-125m");
  EXPECT_EQ(c.params.integer("max_concurrency"), 2);
  EXPECT_EQ(c.params.string("request_rate"), "inf");
  EXPECT_EQ(c.params.integer("num_prompts"), 8);
  // ironbench serve's metrics first, in its order.
  const std::vector<std::string> first = {
      "request_throughput", "output_throughput", "total_token_throughput", "median_ttft_ms",
      "median_tpot_ms",     "median_itl_ms",     "mean_e2el_ms",           "failed"};
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(c.metrics[i].name, first[i]);
  EXPECT_DOUBLE_EQ(metric(c, "request_throughput"), 5.859229976904171);
  EXPECT_DOUBLE_EQ(metric(c, "output_throughput"), 93.74767963046673);
  EXPECT_DOUBLE_EQ(metric(c, "median_ttft_ms"), 44.92285849846667);
  EXPECT_DOUBLE_EQ(metric(c, "median_tpot_ms"), 8.323490332986694);
  EXPECT_DOUBLE_EQ(metric(c, "mean_e2el_ms"), 340.3411977451469);
  EXPECT_EQ(metric(c, "failed"), 0);
  EXPECT_DOUBLE_EQ(metric(c, "p99_e2el_ms"), 876.8009717071254);
  EXPECT_DOUBLE_EQ(metric(c, "std_itl_ms"), 2.8521622338226233);
  EXPECT_EQ(c.find_metric("p99_ttft_ms")->unit, "ms");
  EXPECT_DOUBLE_EQ(metric(c, "duration"), 1.3653671270003542);
  EXPECT_EQ(metric(c, "completed"), 8);
  EXPECT_EQ(c.find_metric("request_goodput"), nullptr);
  EXPECT_EQ(c.status, core::case_status::valid);
  EXPECT_FALSE(c.timing.has_value());
  EXPECT_EQ(json::parse(c.notes.at("result")), json::parse(read_fixture("vllm_sweep_opt125m_c2.json")));
  EXPECT_EQ(c.notes.count("missing"), 0u);
  expect_same_cases(cases, round_trip(cases));
}

TEST(VllmImport, EveryRequestFailed) {
  const auto cases = import_fixture("vllm_all_requests_failed_opt125m.json");
  ASSERT_EQ(cases.size(), 1u);
  const auto& c = cases[0];
  EXPECT_EQ(c.params.integer("max_concurrency"), 0);  // null: unlimited
  EXPECT_EQ(c.device, "facebook/opt-125m");
  EXPECT_EQ(metric(c, "failed"), 8);
  EXPECT_EQ(metric(c, "request_throughput"), 0);
  EXPECT_EQ(c.status, core::case_status::failed);
  EXPECT_EQ(c.reason, "no request completed (8 failed)");
  expect_same_cases(cases, round_trip(cases));
}

TEST(VllmImport, NightlyResultWithoutThroughputsLeavesThemOut) {
  const auto cases = import_fixture("vllm_nightly_llama8b_sharegpt_qps1.json");
  ASSERT_EQ(cases.size(), 1u);
  const auto& c = cases[0];
  EXPECT_EQ(c.device, "/root/.cache/modelscope/hub/LLM-Research/Meta-Llama-3-8B-Instruct");
  EXPECT_EQ(c.params.string("request_rate"), "1");  // 1.0 as ironbench writes rates
  EXPECT_EQ(c.params.integer("num_prompts"), 200);
  EXPECT_EQ(c.params.integer("max_concurrency"), 0);
  EXPECT_DOUBLE_EQ(metric(c, "median_ttft_ms"), 162.3115511611104);
  EXPECT_DOUBLE_EQ(metric(c, "median_itl_ms"), 57.812947779893875);
  EXPECT_DOUBLE_EQ(metric(c, "p99_tpot_ms"), 74.6547423083601);
  // Not in the file: never written as 0.
  for (const char* absent : {"request_throughput", "output_throughput", "mean_e2el_ms", "failed", "duration"}) {
    EXPECT_EQ(c.find_metric(absent), nullptr) << absent;
  }
  EXPECT_EQ(c.notes.at("missing"),
            "not in the file: request_throughput, output_throughput, total_token_throughput, mean_e2el_ms, failed");
  EXPECT_EQ(c.notes.at("date"), "20250217-104118");
  expect_same_cases(cases, round_trip(cases));
}

TEST(VllmImport, DetailedResultOfIronbenchServe) {
  // ironbench serve --save-result --save-detailed writes vLLM's layout with per-request arrays.
  const auto results = parse_vllm_results(read_fixture("ironbench_serve_sim_detailed.json"), "x");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].requests_detailed, 16u);
  const auto cases = vllm_cases(results, "x");
  EXPECT_EQ(cases[0].params.integer("max_concurrency"), 4);
  EXPECT_EQ(cases[0].params.integer("num_prompts"), 16);
  EXPECT_EQ(cases[0].params.string("request_rate"), "inf");
  EXPECT_EQ(metric(cases[0], "failed"), 0);
  EXPECT_EQ(cases[0].notes.at("requests_detailed"), "16 requests (ttfts, itls, ... in notes.result)");
  const auto original = json::parse(cases[0].notes.at("result"));
  EXPECT_EQ(original.at("ttfts").size(), 16u);
  EXPECT_EQ(original.at("itls").size(), 16u);
  EXPECT_DOUBLE_EQ(metric(cases[0], "median_ttft_ms"), original.at("median_ttft_ms").get<double>());
  EXPECT_EQ(cases[0].status, core::case_status::valid);
  expect_same_cases(cases, round_trip(cases));
}

TEST(VllmImport, ArraysAndJsonLinesHoldSeveralPoints) {
  const auto failed = read_fixture("vllm_all_requests_failed_opt125m.json");
  const auto nightly = read_fixture("vllm_nightly_llama8b_sharegpt_qps1.json");
  const auto array =
      parse_vllm_results("[" + read_fixture("vllm_sweep_opt125m_c2.json") + ",\n" + nightly + "]", "a.json");
  ASSERT_EQ(array.size(), 2u);
  EXPECT_EQ(array[0].max_concurrency, 2);
  EXPECT_EQ(array[1].num_prompts, 200);
  const auto lines = parse_vllm_results(failed + "\n" + nightly + "\n\n", "points.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].failed, 8);
  EXPECT_EQ(lines[1].request_rate, "1");
  const auto cases = vllm_cases(lines, "points.jsonl");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].notes.at("source"), "points.jsonl (result 2)");
  expect_same_cases(cases, round_trip(cases));
}

TEST(VllmImport, PythonNanAndOldKeyNames) {
  auto text = read_fixture("vllm_sweep_opt125m_c2.json");
  text.replace(text.find("44.92285849846667"), 17, "NaN");
  text.replace(text.find("\"request_goodput\": null"), 23, "\"request_goodput:\": 4.5");
  text.replace(text.find("\"inf\""), 5, "Infinity");
  const auto cases = vllm_cases(parse_vllm_results(text, "x"), "x");
  EXPECT_EQ(cases[0].find_metric("median_ttft_ms"), nullptr);
  EXPECT_DOUBLE_EQ(metric(cases[0], "request_goodput"), 4.5);
  EXPECT_EQ(cases[0].params.string("request_rate"), "inf");
  // num_prompts absent: completed + failed.
  auto no_prompts = read_fixture("vllm_all_requests_failed_opt125m.json");
  no_prompts.replace(no_prompts.find("\"num_prompts\": 8, "), 18, "");
  const auto derived = parse_vllm_results(no_prompts, "x");
  EXPECT_EQ(derived[0].num_prompts, 8);
  EXPECT_EQ(vllm_cases(derived, "x")[0].notes.at("num_prompts"), "not in the file: completed + failed");
}

TEST(VllmImport, BadInputIsAUsageErrorNamingTheFile) {
  const auto expect_error = [](const std::string& text, const std::string& needle) {
    try {
      (void)parse_vllm_results(text, "bad.json");
      ADD_FAILURE() << "no error for: " << text.substr(0, 80);
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
      EXPECT_NE(message.find(needle), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  };
  const auto good = read_fixture("vllm_sweep_opt125m_c2.json");
  expect_error("", "empty file");
  expect_error("   \n", "empty file");
  expect_error("Successful requests: 8\n", "not valid JSON");
  expect_error(good.substr(0, good.size() / 2), "not valid JSON");
  expect_error("[]", "empty JSON array");
  expect_error("42", "not a vLLM bench serve result");
  expect_error("{\"schema_version\": 1, \"cases\": []}", "not a vLLM bench serve result");
  expect_error("[" + good + ", {\"cases\": []}]", "result 2");
  std::ifstream nccl(std::string(IRONBENCH_TEST_DATA) + "/nccl-tests/all_reduce_perf_h100_16ranks_constructed.json");
  std::stringstream nccl_text;
  nccl_text << nccl.rdbuf();
  expect_error(nccl_text.str(), "not a vLLM bench serve result");
  auto wrong_type = good;
  wrong_type.replace(wrong_type.find("44.92285849846667"), 17, "\"fast\"");
  expect_error(wrong_type, "\"median_ttft_ms\" is \"fast\", not a number");
  auto too_many = good;
  too_many.replace(too_many.find("\"completed\": 8"), 14, "\"completed\": 9");
  too_many.replace(too_many.find("\"failed\": 0,"), 12, "");
  expect_error(too_many, "completed (9) exceeds num_prompts (8)");
  auto fractional = good;
  fractional.replace(fractional.find("\"num_prompts\": 8"), 16, "\"num_prompts\": 8.5");
  expect_error(fractional, "not a count");
  auto no_rate = good;
  no_rate.replace(no_rate.find("\"request_rate\": \"inf\","), 22, "");
  expect_error(no_rate, "without request_rate");
  auto bad_rate = good;
  bad_rate.replace(bad_rate.find("\"request_rate\": \"inf\""), 21, "\"request_rate\": \"fast\"");
  expect_error(bad_rate, "neither \"inf\" nor a rate");
  const auto line = read_fixture("vllm_all_requests_failed_opt125m.json");
  expect_error(line + "\n" + line.substr(0, 100) + "\n", "line 2: not valid JSON");
}

// The one-line usage error parse_vllm_results gives for `text` ("" when it gives none).
std::string vllm_error_of(const std::string& text) {
  return usage_error_of([&] { (void)parse_vllm_results(text, "bad.json"); });
}

// A negative or infinite throughput, latency or duration is an error naming the key (vLLM
// writes none of them; a value cannot be negative), and a number beyond the range of a
// double is one line naming the key and line, not the JSON library's message.
TEST(VllmImport, ABadValueIsAnErrorNamingTheKey) {
  const auto good = read_fixture("vllm_sweep_opt125m_c2.json");
  const auto with = [&](const std::string& original, const std::string& replacement) {
    auto text = good;
    const auto at = text.find(original);
    EXPECT_NE(at, std::string::npos) << original;
    return text.replace(at, original.size(), replacement);
  };
  EXPECT_EQ(vllm_error_of(with("\"request_throughput\": 5.859229976904171", "\"request_throughput\": -5.86")),
            "bad.json: \"request_throughput\" is -5.86, a negative amount");
  EXPECT_EQ(vllm_error_of(with("\"mean_ttft_ms\": 217.27289337468392", "\"mean_ttft_ms\": -217.3")),
            "bad.json: \"mean_ttft_ms\" is -217.3, a negative time");
  EXPECT_EQ(vllm_error_of(with("\"duration\": 1.3653671270003542", "\"duration\": -1.5")),
            "bad.json: \"duration\" is -1.5, a negative amount");
  EXPECT_EQ(vllm_error_of(with("\"mean_ttft_ms\": 217.27289337468392", "\"mean_ttft_ms\": Infinity")),
            "bad.json: \"mean_ttft_ms\" is \"Infinity\", not a number");
  EXPECT_EQ(vllm_error_of(with("\"request_throughput\": 5.859229976904171", "\"request_throughput\": -Infinity")),
            "bad.json: \"request_throughput\" is \"-Infinity\", not a number");
  EXPECT_EQ(vllm_error_of(with("\"mean_ttft_ms\": 217.27289337468392", "\"mean_ttft_ms\": 1e400")),
            "bad.json: line 24: \"mean_ttft_ms\" is 1e400, beyond the range of a number");
  EXPECT_EQ(vllm_error_of(with("\"request_throughput\": 5.859229976904171", "\"request_throughput\": -1e400")),
            "bad.json: line 17: \"request_throughput\" is -1e400, beyond the range of a number");
  EXPECT_EQ(vllm_error_of(with("\"duration\": 1.3653671270003542", "\"duration\": 1" + std::string(400, '0'))),
            "bad.json: line 12: \"duration\" is 1000000000000000000000000000000000000000... (401 bytes), beyond "
            "the range of a number");
  // A count of 2^63 or more cannot be one (its conversion to a 64-bit integer is undefined).
  EXPECT_EQ(vllm_error_of(with("\"completed\": 8", "\"completed\": 33333333333333333333333333")),
            "bad.json: \"completed\" is 3.3333333333333335e+25, not a count");
  EXPECT_EQ(vllm_error_of(with("\"completed\": 8", "\"completed\": 9223372036854775808")),
            "bad.json: \"completed\" is 9223372036854775808, not a count");
  // A form feed before the number (found by tests/fuzz/import_vllm_fuzz.cpp: the document is
  // trimmed of it, the number was not checked, and the JSON parser's overflow escaped as an
  // uncaught exception).
  EXPECT_EQ(vllm_error_of("\f1E2133"), "bad.json: line 1: 1E2133 is beyond the range of a number");
  EXPECT_EQ(vllm_error_of("[\v-1e999]"), "bad.json: line 1: -1e999 is beyond the range of a number");
  // The good file, a tiny number and a number in a string still read, with the same values.
  EXPECT_EQ(vllm_error_of(good), "");
  const auto tiny = parse_vllm_results(with("\"mean_ttft_ms\": 217.27289337468392", "\"mean_ttft_ms\": 1e-400"), "x");
  EXPECT_EQ(tiny[0].values.at("mean_ttft_ms"), 0.0);
  const auto quoted = parse_vllm_results(with("\"backend\": \"openai\"", "\"backend\": \"1e400 NaN Infinity\""), "x");
  EXPECT_EQ(quoted[0].backend, "1e400 NaN Infinity");
  EXPECT_DOUBLE_EQ(quoted[0].values.at("mean_ttft_ms"), 217.27289337468392);
  EXPECT_DOUBLE_EQ(quoted[0].values.at("request_throughput"), 5.859229976904171);
}

// A key of 100,000 characters (which overflowed the stack of the recursive pattern that
// classified keys, exit 139) is read and left out like any key ironbench does not know.
TEST(VllmImport, LongKeysAreReadWithoutRecursion) {
  const auto good = read_fixture("vllm_sweep_opt125m_c2.json");
  for (const auto& key : {std::string(100000, 'k'), "p" + std::string(100000, '9') + "_ttft_ms",
                          "mean_" + std::string(100000, 'x') + "_ms"}) {
    auto text = good;
    text.insert(text.find('{') + 1, "\"" + key + "\": 1.5, ");
    const auto results = parse_vllm_results(text, "long.json");
    ASSERT_EQ(results.size(), 1u);
    EXPECT_DOUBLE_EQ(results[0].values.at("median_ttft_ms"), 44.92285849846667);
    const auto cases = vllm_cases(results, "long.json");
    ASSERT_EQ(cases.size(), 1u);
    const bool percentile = key.starts_with("p9");
    EXPECT_EQ(results[0].values.count(key), percentile ? 1u : 0u) << key.substr(0, 10);
  }
  auto wrong = good;
  wrong.insert(wrong.find('{') + 1, "\"p99_" + std::string(100000, 'x') + "\": 1.5, ");
  wrong.replace(wrong.find("44.92285849846667"), 17, "\"fast\"");
  EXPECT_EQ(vllm_error_of(wrong), "bad.json: \"median_ttft_ms\" is \"fast\", not a number");
}

}  // namespace
}  // namespace ironbench::results
