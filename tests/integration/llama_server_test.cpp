// ironbench serve against a real inference engine: llama.cpp's OpenAI-compatible server
// (llama-cpp-python) with a tiny random-weight model, both real processes on loopback.
// The fixture (tests/llama/prepare.sh) builds the server and the model; where it could not,
// every test skips with its reason.
//
// The model only ever emits whole words and never its end-of-text token
// (tests/llama/make_tiny_gguf.py), so each request yields exactly max_tokens tokens and the
// streamed text, counted with the model's tokenizer.json, gives that number back.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "core/json.hpp"
#include "free_port.hpp"
#include "http_get.hpp"
#include "process.hpp"

namespace ironbench::testing {
namespace {

const std::string fixtures = IRONBENCH_LLAMA_FIXTURES;

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Empty when the fixture is ready; otherwise why the tests cannot run.
std::string fixture_problem() {
  if (std::filesystem::exists(fixtures + "/SKIP")) return trimmed(read_file(fixtures + "/SKIP"));
  if (!std::filesystem::exists(fixtures + "/tiny.gguf") || !std::filesystem::exists(fixtures + "/python")) {
    return "no fixture in " + fixtures + ": run the LlamaServerFixtures test (tests/llama/prepare.sh) first";
  }
  return {};
}

// llama-cpp-python's server with the tiny model on a free port; stopped when the test ends,
// whether it passed or not.
class llama_server {
 public:
  explicit llama_server(bool interrupt_requests = false, bool embedding = false) {
    port_ = free_port();
    const auto python = trimmed(read_file(fixtures + "/python"));
    // `timeout` bounds the server's life should this test process die without stopping it;
    // it passes SIGTERM on to the server. interrupt_requests: by default a new request cuts
    // the stream in progress short, which suits one user at a time, not a benchmark.
    process_ = start_program(
        "timeout", {"600", python, "-m", "llama_cpp.server", "--model", fixtures + "/tiny.gguf", "--host", "127.0.0.1",
                    "--port", std::to_string(port_), "--n_ctx", "512", "--n_threads", "1", "--interrupt_requests",
                    interrupt_requests ? "true" : "false", "--embedding", embedding ? "true" : "false"});
    // Python starting, FastAPI importing and the model loading take a few seconds; 60 is
    // generous for a loaded 2-core machine.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline && !exited()) {
      if (const auto models = http_get(port_, "/v1/models")) {
        const auto j = json::parse(*models, nullptr, false);
        if (!j.is_discarded() && j.contains("data") && !j.at("data").empty()) {
          model_ = j.at("data").at(0).value("id", std::string());
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  llama_server(const llama_server&) = delete;
  llama_server& operator=(const llama_server&) = delete;
  ~llama_server() {
    if (exited()) return;
    kill(process_.pid, SIGTERM);
    for (int i = 0; i < 100 && !exited(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!exited()) {
      // `timeout` leads a process group of its own with the server: end both.
      kill(getpgid(process_.pid) == process_.pid ? -process_.pid : process_.pid, SIGKILL);
      waitpid(process_.pid, nullptr, 0);
    }
  }
  /// Empty until the server answers /v1/models: the name it gives its model.
  [[nodiscard]] const std::string& model() const { return model_; }
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// The end of the server's log, for failure messages.
  [[nodiscard]] std::string log_tail() const {
    const auto log = read_file(process_.err_path) + read_file(process_.out_path);
    return log.size() > 3000 ? log.substr(log.size() - 3000) : log;
  }

 private:
  bool exited() {
    if (reaped_) return true;
    reaped_ = waitpid(process_.pid, nullptr, WNOHANG) == process_.pid;
    return reaped_;
  }
  started_process process_;
  int port_ = 0;
  bool reaped_ = false;
  std::string model_;
};

// Skips when there is no fixture; fails when the server does not come up.
#define START_LLAMA_SERVER(server)                                                       \
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem; \
  llama_server server;                                                                   \
  ASSERT_FALSE(server.model().empty()) << "the server did not start (or not within 60 s):\n" << server.log_tail()

// What a single-point `ironbench serve --save-result --save-detailed` left in its
// --result-dir: vLLM's result JSON and the per-request records.
struct serve_outcome {
  int exit_code = -1;
  std::string log;  ///< its standard error and output
  json point = json::object();
  std::vector<json> requests;
};

serve_outcome read_result_dir(const std::string& dir, serve_outcome outcome) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto path = entry.path().string();
    if (path.ends_with(".requests.jsonl")) {
      for (const auto& line : lines_of(read_file(path))) outcome.requests.push_back(json::parse(line));
    } else if (path.ends_with(".json")) {
      outcome.point = json::parse(read_file(path));
    }
  }
  EXPECT_FALSE(outcome.point.empty()) << "no result JSON in " << dir << "\n" << outcome.log;
  return outcome;
}

// ironbench serve against `server`: 6 requests, 2 at a time, counted with the model's
// tokenizer, plus `args`. The client's lateness is not judged here: the server shares the
// machine's cores with it. --ignore-eos is sent as vLLM's benchmarks send it; this server
// ignores the field (the model needs none, and the tests add min_tokens, the engine's own).
serve_outcome serve(const llama_server& server, const std::vector<std::string>& args) {
  const auto dir = make_temp_dir("ironbench_llama_");
  std::vector<std::string> all = {"serve",
                                  "--base-url",
                                  server.url(),
                                  "--model",
                                  server.model(),
                                  "--tokenizer",
                                  fixtures + "/tokenizer.json",
                                  "--num-prompts",
                                  "6",
                                  "--max-concurrency",
                                  "2",
                                  "--ignore-eos",
                                  "--save-result",
                                  "--save-detailed",
                                  "--result-dir",
                                  dir,
                                  "--no-save",
                                  "--max-lateness-ms",
                                  "1000",
                                  "--timeout",
                                  "120s"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_ironbench(all);
  return read_result_dir(dir, {r.exit_code, r.err + r.out, json::object(), {}});
}

// Prompts of 16 words of the model's vocabulary, as a custom dataset: the server takes text
// prompts only (its `prompt` is a string or a list of strings, not token ids).
std::string write_prompts(std::size_t count) {
  const auto path = make_temp_dir("ironbench_llama_prompts_") + "/prompts.jsonl";
  const char* words[] = {"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with"};
  std::ofstream out(path);
  for (std::size_t i = 0; i < count; ++i) {
    std::string prompt;
    for (std::size_t k = 0; k < 16; ++k) prompt += std::string(" ") + words[(i * 5 + k * 7) % std::size(words)];
    out << json{{"prompt", prompt}}.dump() << '\n';
  }
  return path;
}

std::size_t words_in(const std::string& text) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string word; in >> word;) ++n;
  return n;
}

// What every successful run of 6 requests of 8 tokens must show.
void expect_six_requests_of_eight_tokens(const serve_outcome& outcome) {
  const auto& p = outcome.point;
  EXPECT_EQ(p.value("completed", -1), 6) << outcome.log;
  EXPECT_EQ(p.value("failed", -1), 0) << p.value("errors_by_class", json()).dump();
  EXPECT_EQ(p.value("total_output_tokens", -1), 6 * 8);
  EXPECT_EQ(p.value("output_token_count_mismatches", -1), 0);
  for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
    for (const char* statistic : {"mean", "median"}) {
      const auto key = std::string(statistic) + "_" + metric + "_ms";
      EXPECT_GT(p.value(key, 0.0), 0.0) << key;
    }
  }
  EXPECT_LE(p.value("median_ttft_ms", 0.0), p.value("median_e2el_ms", 0.0));
  EXPECT_LE(p.value("mean_ttft_ms", 0.0), p.value("mean_e2el_ms", 0.0));
  EXPECT_GT(p.value("output_throughput", 0.0), 0.0);
  ASSERT_EQ(p.value("output_lens", json::array()).size(), 6u) << "--save-detailed arrays missing";
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(p.at("output_lens").at(i), 8) << i;
    EXPECT_LE(p.at("ttfts").at(i).get<double>(), p.value("duration", 0.0)) << i;
    // Each token is one word: the text says how many tokens there were, whatever counted them.
    EXPECT_EQ(words_in(p.at("generated_texts").at(i).get<std::string>()), 8u) << p.at("generated_texts").at(i);
    EXPECT_EQ(p.at("errors").at(i), "") << i;
  }
  // Per request, the times add up: first token, then the gaps to the last event.
  ASSERT_EQ(outcome.requests.size(), 6u);
  for (const auto& r : outcome.requests) {
    double gaps_ms = 0;
    for (const auto& gap : r.at("itl_ms")) gaps_ms += gap.get<double>();
    EXPECT_GT(r.at("ttft_ms").get<double>(), 0.0) << r.dump();
    EXPECT_LE(r.at("ttft_ms").get<double>(), r.at("e2el_ms").get<double>()) << r.dump();
    EXPECT_NEAR(r.at("ttft_ms").get<double>() + gaps_ms, r.at("e2el_ms").get<double>(), 0.01) << r.dump();
  }
}

TEST(LlamaServer, StreamedCompletionsAreTimedAndCountedExactly) {
  START_LLAMA_SERVER(server);
  const auto outcome =
      serve(server, {"--endpoint", "/v1/completions", "--dataset-name", "custom", "--dataset-path", write_prompts(6),
                     "--custom-output-len", "8", "--extra-body", R"({"min_tokens": 8})"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.log << server.log_tail();
  expect_six_requests_of_eight_tokens(outcome);
  const auto& p = outcome.point;
  EXPECT_EQ(p.value("model_id", std::string()), server.model());
  EXPECT_EQ(p.value("backend", std::string()), "openai");
  // Two requests at a time, the whole of each stream measured.
  EXPECT_EQ(p.value("max_concurrency", 0), 2);
  EXPECT_LE(p.value("max_concurrent_requests", 0), 2);
  // 8 tokens and the closing chunk with the finish reason: 8 gaps per request.
  EXPECT_EQ(p.value("itls", json::array()).at(0).size(), 8u);
}

TEST(LlamaServer, StreamedChatCompletionsAreTimedAndCountedExactly) {
  START_LLAMA_SERVER(server);
  // The server reads max_tokens, not max_completion_tokens (which OpenAI's chat API and
  // ironbench use): without it a chat request runs to the end of the context.
  const auto outcome =
      serve(server, {"--endpoint", "/v1/chat/completions", "--dataset-name", "random", "--random-input-len", "16",
                     "--random-output-len", "8", "--extra-body", R"({"max_tokens": 8, "min_tokens": 8})"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.log << server.log_tail();
  expect_six_requests_of_eight_tokens(outcome);
  EXPECT_EQ(outcome.point.value("backend", std::string()), "openai-chat");
}

TEST(LlamaServer, UnstreamedCompletionsTakeTheirTokenCountsFromUsage) {
  START_LLAMA_SERVER(server);
  // No --tokenizer: a response that is not streamed carries `usage`, the count to use.
  const auto dir = make_temp_dir("ironbench_llama_usage_");
  const auto r = run_ironbench({"serve",
                                "--base-url",
                                server.url(),
                                "--model",
                                server.model(),
                                "--endpoint",
                                "/v1/completions",
                                "--dataset-name",
                                "custom",
                                "--dataset-path",
                                write_prompts(4),
                                "--custom-output-len",
                                "8",
                                "--extra-body",
                                R"({"min_tokens": 8})",
                                "--no-stream",
                                "--num-prompts",
                                "4",
                                "--max-concurrency",
                                "2",
                                "--save-result",
                                "--save-detailed",
                                "--result-dir",
                                dir,
                                "--no-save",
                                "--max-lateness-ms",
                                "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err << server.log_tail();
  const auto outcome = read_result_dir(dir, {r.exit_code, r.err, json::object(), {}});
  const auto& p = outcome.point;
  EXPECT_EQ(p.value("completed", -1), 4);
  EXPECT_EQ(p.value("total_output_tokens", -1), 4 * 8);
  // Without a stream the whole answer is the first "token": TTFT is the end-to-end latency.
  EXPECT_GT(p.value("median_ttft_ms", 0.0), 0.0);
  EXPECT_DOUBLE_EQ(p.value("median_ttft_ms", 0.0), p.value("median_e2el_ms", -1.0));
  ASSERT_EQ(outcome.requests.size(), 4u);
  for (const auto& request : outcome.requests) EXPECT_EQ(request.value("usage_output_tokens", -1), 8) << request.dump();
}

TEST(LlamaServer, StreamsTheServerCutsShortAreTruncatedFailures) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  // With its default interrupt_requests, the server ends the stream in progress with [DONE]
  // and no finish reason as soon as another request waits: no request is lost, but only the
  // last one is whole. 64 tokens a request make the next one arrive while one streams.
  llama_server server(/*interrupt_requests=*/true);
  ASSERT_FALSE(server.model().empty()) << server.log_tail();
  const auto outcome =
      serve(server, {"--endpoint", "/v1/completions", "--dataset-name", "custom", "--dataset-path", write_prompts(6),
                     "--custom-output-len", "64", "--extra-body", R"({"min_tokens": 64})"});
  const auto& p = outcome.point;
  EXPECT_EQ(p.value("completed", 0) + p.value("failed", 0), 6) << outcome.log;
  EXPECT_GE(p.value("failed", 0), 1) << outcome.log;
  EXPECT_GE(p.value("completed", 0), 1) << outcome.log;  // the last request has nothing after it
  EXPECT_EQ(p.at("errors_by_class").value("truncated", 0), p.value("failed", -1)) << p.at("errors_by_class").dump();
  for (std::size_t i = 0; i < 6; ++i) {
    if (p.at("errors").at(i) != "")
      EXPECT_LE(words_in(p.at("generated_texts").at(i).get<std::string>()), 64u);
    else
      EXPECT_EQ(p.at("output_lens").at(i), 64);
  }
}

TEST(LlamaServer, TokenIdPromptsAreRefusedAndEachIsAFailedRequest) {
  START_LLAMA_SERVER(server);
  // The random dataset's completions prompts are token ids, which this server refuses: its
  // request validation answers HTTP 500. Every request fails under its class and the run
  // says so in its exit code.
  const auto r = run_ironbench({"serve",
                                "--base-url",
                                server.url(),
                                "--model",
                                server.model(),
                                "--endpoint",
                                "/v1/completions",
                                "--dataset-name",
                                "random",
                                "--random-input-len",
                                "16",
                                "--random-output-len",
                                "8",
                                "--num-prompts",
                                "3",
                                "--no-save",
                                "--json",
                                "-",
                                "--max-lateness-ms",
                                "1000"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no request to"), std::string::npos) << r.err;
  const auto run = json::parse(r.out);
  const auto p = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
  EXPECT_EQ(p.value("completed", -1), 0);
  EXPECT_EQ(p.at("errors_by_class").value("http_5xx", 0), 3) << p.at("errors_by_class").dump();
}

// llama-cpp-python's server with --embedding: /v1/embeddings answers each batch of texts. Every
// request is either a checked reply (one vector per text, finite, of one dimension, the
// server's usage.prompt_tokens counted) or, where the model pools nothing and the server
// answers a vector per token instead, a malformed failure saying so: never a crash or a
// request unaccounted for.
TEST(LlamaServer, EmbeddingsAreCheckedRepliesInEmbeddingMode) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  llama_server server(false, true);
  ASSERT_FALSE(server.model().empty()) << "the server did not start";
  const auto r = run_ironbench({"serve",
                                "--base-url",
                                server.url(),
                                "--model",
                                server.model(),
                                "--endpoint",
                                "/v1/embeddings",
                                "--inputs-per-request",
                                "3",
                                "--random-input-len",
                                "8",
                                "--num-prompts",
                                "4",
                                "--max-concurrency",
                                "1",
                                "--no-save",
                                "--json",
                                "-",
                                "--max-lateness-ms",
                                "1000",
                                "--no-server-metrics",
                                "--timeout",
                                "120s"});
  const auto run = json::parse(r.out);
  const auto p = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
  EXPECT_EQ(p.at("backend"), "openai-embeddings");
  EXPECT_FALSE(p.contains("median_ttft_ms"));
  const int completed = p.value("completed", -1), failed = p.value("failed", -1);
  EXPECT_EQ(completed + failed, 4) << p.dump();
  if (completed == 4) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(p.value("embedding_dimension", 0), 0);
    EXPECT_EQ(p.value("input_tokens_from_usage", -1), 4);
    EXPECT_GT(p.value("total_input_tokens", 0), 0);
    EXPECT_GT(p.value("median_e2el_ms", 0.0), 0.0);
  } else {
    EXPECT_EQ(p.at("errors_by_class").value("malformed", 0), 4) << p.at("errors_by_class").dump() << r.err;
    EXPECT_NE(r.err.find("/v1/embeddings"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("one per token"), std::string::npos) << r.err;
  }
}

// llama-cpp-python's server answers any model name with its one model, so LoRA adapters
// named as models would all be the base model: ironbench refuses in one line, before sending
// anything, naming the adapters the server's /v1/models does not list.
TEST(LlamaServer, LoraAdaptersTheServerDoesNotListAreRefusedInOneLine) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  llama_server server(false, false);
  ASSERT_FALSE(server.model().empty()) << "the server did not start";
  const auto r = run_ironbench({"serve", "--base-url", server.url(), "--lora-modules", "sql,chat", "--num-prompts", "2",
                                "--no-save", "--no-server-metrics"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("ironbench: error: the server at " + server.url() +
                       " does not serve LoRA adapters sql, chat (GET /v1/models lists: " + server.model() + ")"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");  // nothing was measured
}

// llama-cpp-python's server has no rerank endpoint: its HTTP 404 becomes one line naming the
// endpoint, exit status 1, every request a failed http_4xx.
TEST(LlamaServer, ARerankEndpointTheServerLacksIsAOneLineErrorNamingIt) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  llama_server server(false, true);
  ASSERT_FALSE(server.model().empty()) << "the server did not start";
  const auto r = run_ironbench({"serve", "--base-url", server.url(), "--model", server.model(), "--endpoint",
                                "/v1/rerank", "--inputs-per-request", "2", "--num-prompts", "3", "--no-save", "--json",
                                "-", "--max-lateness-ms", "1000", "--no-server-metrics"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("ironbench: error: no request to " + server.url() + "/v1/rerank succeeded (http_4xx: HTTP 404"),
            std::string::npos)
      << r.err;
  const auto p = json::parse(json::parse(r.out).at("cases").at(0).at("notes").at("result").get<std::string>());
  EXPECT_EQ(p.at("errors_by_class").value("http_4xx", 0), 3) << p.dump();
}

// An experiment whose service is the real engine: started by the recipe, judged ready by its
// model list and a one-token completion, driven through a two-point sweep, stopped at the end.
TEST(LlamaServer, AnExperimentStartsTheServerSweepsTwoPointsStoresThemAndStopsIt) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  const temp_dir dir("ironbench_llama_experiment_");
  const auto recipe = dir.write("llama.yaml", R"(schema_version: 1
name: llama-sweep
variables:
  python: )" + trimmed(read_file(fixtures + "/python")) +
                                                  R"(
  gguf: )" + fixtures + R"(/tiny.gguf
  port: ")" + std::to_string(free_port()) + R"("
matrix:
  concurrency: [1, 2]
steps:
  - service:
      name: llama
      command: >-
        ${python} -m llama_cpp.server --model ${gguf} --host 127.0.0.1 --port ${port} --n_ctx 512
        --n_threads 1 --interrupt_requests false
      ready: {url: "http://127.0.0.1:${port}", model: "${gguf}", timeout: 120s}
  - serve:
      options:
        model: ${gguf}
        tokenizer: )" + fixtures + R"(/tokenizer.json
        endpoint: /v1/completions
        dataset-name: custom
        dataset-path: )" + write_prompts(4) + R"(
        custom-output-len: 8
        extra-body: '{"min_tokens": 8}'
        num-prompts: 4
        max-concurrency: ${concurrency}
        max-lateness-ms: 1000
        timeout: 120s
)");
  const auto r = run_ironbench({"experiment", "run", recipe.string(), "--db", (dir / "r.db").string(), "--results-dir",
                                (dir / "results").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("llama: ready after"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 done, 0 invalid, 0 failed"), std::string::npos) << r.out;
  // The server is gone: its pid, from "llama: started (pid N)".
  std::smatch pid;
  ASSERT_TRUE(std::regex_search(r.out, pid, std::regex(R"(llama: started \(pid (\d+)\))"))) << r.out;
  EXPECT_NE(kill(std::stoi(pid[1].str()), 0), 0) << "the service is still running";
  std::vector<std::string> points;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "results")) {
    const auto name = e.path().filename().string();
    if (name.rfind("point-", 0) == 0 && e.path().extension() == ".json") points.push_back(e.path().string());
    if (name == "report.html") {
      EXPECT_GT(std::filesystem::file_size(e.path()), 1000u);
    }
  }
  std::sort(points.begin(), points.end());
  ASSERT_EQ(points.size(), 2u);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto run = json::parse(read_file(points[i]));
    ASSERT_EQ(run.at("cases").size(), 1u) << run.dump(1);
    const auto& c = run.at("cases").at(0);
    EXPECT_EQ(c.at("status"), "valid") << c.dump(1);
    EXPECT_EQ(c.at("params").at("max_concurrency"), static_cast<int>(i + 1));
    const auto result = json::parse(c.at("notes").at("result").get<std::string>());
    EXPECT_EQ(result.value("completed", -1), 4);
    EXPECT_EQ(result.value("failed", -1), 0);
    EXPECT_EQ(result.value("total_output_tokens", -1), 4 * 8);
  }
}

}  // namespace
}  // namespace ironbench::testing
