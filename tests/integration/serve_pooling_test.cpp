// ironbench serve's embeddings, rerank and score requests and its multimodal chat prompts,
// against serve-sim (real processes on loopback), checked against what serve-sim logs as the
// truth of each request: its prompt tokens (sim_pooling.hpp's and sim_images.hpp's rules),
// inputs and images.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "run_json.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

std::vector<json> log_lines(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

json serve_run(const std::string& url, const std::vector<std::string>& extra, int expected_exit = 0) {
  std::vector<std::string> args = {"serve", "--base-url",        url,    "--no-save",          "--json",
                                   "-",     "--max-lateness-ms", "1000", "--no-server-metrics"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_ironbench(args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
  return expected_exit == 0 ? json::parse(r.out) : json();
}

std::int64_t logged_sum(const std::vector<json>& rows, const char* key) {
  std::int64_t sum = 0;
  for (const auto& row : rows) sum += row.value(key, std::int64_t{0});
  return sum;
}

// One request at a time, 4 texts of 25 words each: serve-sim charges 100 prompt tokens and
// answers after one prefill step, 100 / 100000 s + 5 ms = 6 ms. Timed: the client's times
// against the server's and the step model's, with tolerances from a loaded machine.
TEST(ServePoolingTimed, EmbeddingsCountTheServersTokensAndTimeTheWholeReply) {
  temp_dir dir;
  const auto log = (dir / "requests.jsonl").string();
  json p, run;
  {
    sim_process sim({"--prefill-tokens-per-s", "100000", "--decode-base-ms", "5", "--decode-per-seq-ms", "0",
                     "--embedding-dim", "64", "--request-log", log});
    ASSERT_GT(sim.port(), 0);
    run = serve_run(sim.url(), {"--endpoint", "/v1/embeddings", "--inputs-per-request", "4", "--random-input-len", "25",
                                "--num-prompts", "20", "--max-concurrency", "1"});
    p = point_of(run);
  }
  const auto rows = log_lines(log);
  ASSERT_EQ(rows.size(), 20U);
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("inputs"), 4);
    EXPECT_EQ(row.at("prompt_tokens"), 100);
  }
  EXPECT_EQ(p.at("backend"), "openai-embeddings");
  EXPECT_EQ(p.at("completed"), 20);
  EXPECT_EQ(p.at("inputs_per_request"), 4);
  EXPECT_EQ(p.at("embedding_dimension"), 64);
  EXPECT_EQ(p.at("total_input_tokens").get<std::int64_t>(), logged_sum(rows, "prompt_tokens"));
  EXPECT_EQ(p.at("input_tokens_from_usage"), 20);
  const double duration = p.at("duration").get<double>();
  EXPECT_DOUBLE_EQ(p.at("request_throughput").get<double>(), 20 / duration);
  EXPECT_DOUBLE_EQ(p.at("input_throughput").get<double>(), 2000 / duration);
  EXPECT_DOUBLE_EQ(p.at("inputs_throughput").get<double>(), 80 / duration);
  // The server's own span of the point (first arrival to last reply) bounds the client's.
  double first = 1e300, last = 0;
  for (const auto& row : rows) {
    first = std::min(first, row.at("arrived_ns").get<double>());
    last = std::max(last, row.at("ended_ns").get<double>());
  }
  const double server_rate = 20 / ((last - first) * 1e-9);
  expect_time_near("request throughput against the server's own span, %",
                   100 * (p.at("request_throughput").get<double>() / server_rate - 1), 0, 10, "%");
#if !IRONBENCH_SANITIZED_BUILD
  expect_time_not_below("median E2EL not before the step model", p.at("median_e2el_ms").get<double>(), 6.0, 0.2);
  expect_time_not_above("median E2EL late", p.at("median_e2el_ms").get<double>(), 6.0, 7.0);
  EXPECT_LE(p.at("request_throughput").get<double>(), 1000.0 / 6.0);
#endif
  // No token stream: no TTFT, TPOT or ITL, not even as zeros.
  for (const char* key : {"median_ttft_ms", "median_tpot_ms", "mean_itl_ms", "output_throughput"}) {
    EXPECT_FALSE(p.contains(key)) << key;
  }
  for (const auto& m : run.at("cases").at(0).at("metrics")) {
    EXPECT_EQ(m.at("name").get<std::string>().find("ttft"), std::string::npos) << m.dump();
  }
  EXPECT_TRUE(p.contains("p99_e2el_ms"));
}

// --inputs-per-request 1,3 sweeps: one point per value, each with its own count.
TEST(ServePooling, InputsPerRequestIsASweepAxis) {
  sim_process sim;
  ASSERT_GT(sim.port(), 0);
  const auto run = serve_run(sim.url(), {"--backend", "openai-embeddings", "--inputs-per-request", "1,3",
                                         "--random-input-len", "10", "--num-prompts", "6"});
  ASSERT_GE(run.at("cases").size(), 2U);
  const auto one = point_of(run, 0), three = point_of(run, 1);
  EXPECT_EQ(one.at("inputs_per_request"), 1);
  EXPECT_EQ(one.at("total_input_tokens"), 6 * 10);
  EXPECT_EQ(three.at("inputs_per_request"), 3);
  EXPECT_EQ(three.at("total_input_tokens"), 6 * 3 * 10);
}

// Rerank and score count each (query, document) pair: 6 documents of 7 words and a query of 5
// are 6 x 12 = 72 tokens a request. vLLM's rerank reports only usage.total_tokens, TEI's none
// (the client's count is used), score usage.prompt_tokens.
TEST(ServePooling, RerankAndScoreCountEveryQueryDocumentPair) {
  struct kind {
    std::vector<std::string> args;
    const char* backend;
    int from_usage;
  };
  const std::vector<kind> kinds = {{{"--endpoint", "/v1/rerank"}, "vllm-rerank", 8},
                                   {{"--backend", "tei-rerank"}, "tei-rerank", 0},
                                   {{"--endpoint", "/score"}, "vllm-score", 8}};
  for (const auto& k : kinds) {
    temp_dir dir;
    const auto log = (dir / "requests.jsonl").string();
    json p;
    {
      sim_process sim({"--request-log", log});
      ASSERT_GT(sim.port(), 0);
      auto args = k.args;
      for (const char* a : {"--inputs-per-request", "6", "--rerank-query-len", "5", "--random-input-len", "7",
                            "--num-prompts", "8", "--max-concurrency", "4"}) {
        args.emplace_back(a);
      }
      p = point_of(serve_run(sim.url(), args));
    }
    const auto rows = log_lines(log);
    ASSERT_EQ(rows.size(), 8U) << k.backend;
    for (const auto& row : rows) EXPECT_EQ(row.at("prompt_tokens"), 72) << k.backend;
    EXPECT_EQ(p.at("backend"), k.backend);
    EXPECT_EQ(p.at("completed"), 8) << k.backend << p.dump();
    EXPECT_EQ(p.at("total_input_tokens").get<std::int64_t>(), logged_sum(rows, "prompt_tokens")) << k.backend;
    EXPECT_EQ(p.at("input_tokens_from_usage"), k.from_usage) << k.backend;
    EXPECT_FALSE(p.contains("embedding_dimension"));
  }
}

// serve-sim's malformed fault answers one vector short: the client fails that request as
// malformed, saying why, and the point goes on.
TEST(ServePooling, AReplyWithTooFewVectorsIsMalformed) {
  sim_process sim({"--fault", "malformed", "--fault-every", "3"});
  ASSERT_GT(sim.port(), 0);
  temp_dir dir;
  const auto r = run_ironbench({"serve", "--base-url", sim.url(), "--no-server-metrics", "--endpoint", "/v1/embeddings",
                                "--inputs-per-request", "3", "--num-prompts", "9", "--save-result", "--save-detailed",
                                "--result-dir", dir.str(), "--json", "-", "--max-lateness-ms", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = point_of(json::parse(r.out));
  EXPECT_EQ(p.at("completed"), 6);
  EXPECT_EQ(p.at("errors_by_class").at("malformed"), 3);
  std::string lines;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().extension() == ".jsonl") lines += read_file(entry.path().string());
  }
  EXPECT_NE(lines.find("2 embeddings for 3 inputs"), std::string::npos) << lines;
}

// Two PNG images of 100 x 60 beside each prompt: serve-sim counts ceil(100/28) x ceil(60/28)
// = 12 tokens each, and the client records exactly that excess over the text's count.
TEST(ServePooling, ImagesPromptTokenExcessIsTheSimulatorsRule) {
  struct image_case {
    const char* format;
    const char* size;
    int per_image;
  };
  for (const auto& c : {image_case{"png", "100x60", 12}, image_case{"jpeg", "57x29", 6}}) {
    temp_dir dir;
    const auto log = (dir / "requests.jsonl").string();
    json p;
    {
      sim_process sim({"--request-log", log});
      ASSERT_GT(sim.port(), 0);
      p = point_of(serve_run(sim.url(), {"--endpoint", "/v1/chat/completions", "--images-per-request", "2",
                                         "--image-size", c.size, "--image-format", c.format, "--random-input-len", "16",
                                         "--random-output-len", "3", "--num-prompts", "5"}));
    }
    const auto rows = log_lines(log);
    ASSERT_EQ(rows.size(), 5U);
    for (const auto& row : rows) {
      EXPECT_EQ(row.at("images"), 2);
      EXPECT_EQ(row.at("image_tokens"), 2 * c.per_image);
      EXPECT_EQ(row.at("text_tokens"), 16);
    }
    EXPECT_EQ(p.at("images_per_request"), 2);
    EXPECT_EQ(p.at("total_images"), 10);
    EXPECT_EQ(p.at("server_prompt_tokens").get<std::int64_t>(), logged_sum(rows, "prompt_tokens"));
    EXPECT_EQ(p.at("text_prompt_tokens").get<std::int64_t>(), logged_sum(rows, "text_tokens"));
    EXPECT_DOUBLE_EQ(p.at("mean_extra_prompt_tokens_per_image").get<double>(), c.per_image) << c.format;
    EXPECT_DOUBLE_EQ(p.at("mean_extra_prompt_tokens_per_request").get<double>(), 2 * c.per_image);
    EXPECT_EQ(p.at("total_output_tokens"), 15);  // the text endpoint's metrics as before
  }
}

TEST(ServePooling, SettingsThatDoNotFitTheEndpointAreUsageErrors) {
  const std::vector<std::vector<std::string>> wrong = {
      {"--inputs-per-request", "4"},                                  // completions
      {"--endpoint", "/v1/embeddings", "--inputs-per-request", "0"},  // no inputs
      {"--endpoint", "/v1/embeddings", "--slo", "ttft:100", "--search", "rate"},
      {"--endpoint", "/v1/embeddings", "--dataset-name", "sharegpt", "--dataset-path", "x.json"},
      {"--images-per-request", "1", "--image-size", "10x10"},               // completions
      {"--endpoint", "/v1/chat/completions", "--images-per-request", "1"},  // no size
      {"--endpoint", "/v1/chat/completions", "--images-per-request", "1", "--image-size", "10by10"},
      {"--backend", "no-such-backend"}};
  for (const auto& args : wrong) {
    std::vector<std::string> all = {"serve", "--base-url", "http://127.0.0.1:9", "--no-save"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_ironbench(all);
    EXPECT_EQ(r.exit_code, 2) << args.front() << " " << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find("ironbench: error:"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ironbench::testing
