// ironbench serve scraping llama.cpp's own server (llama-server --metrics, built by
// tests/llama/prepare_server_binary.sh) with the tiny model of tests/llama/prepare.sh: its
// series must appear under the common names. Slow (the first build compiles llama.cpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/json.hpp"
#include "free_port.hpp"
#include "http_get.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

const std::string fixtures = IRONBENCH_LLAMA_FIXTURES;
const std::string server_fixture = IRONBENCH_LLAMA_SERVER_FIXTURE;

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Empty when both fixtures are ready; otherwise why the test cannot run.
std::string fixture_problem() {
  if (std::filesystem::exists(fixtures + "/SKIP")) return first_line(fixtures + "/SKIP");
  if (!std::filesystem::exists(fixtures + "/tiny.gguf")) return "no tiny.gguf in " + fixtures;
  if (std::filesystem::exists(server_fixture + "/SKIP")) return first_line(server_fixture + "/SKIP");
  if (!std::filesystem::exists(server_fixture + "/llama-server")) return "llama-server was not built";
  return {};
}

TEST(LlamaMetricsSlow, LlamaServersSeriesAppearUnderTheCommonNames) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  const int port = free_port();
  auto server = start_program(
      "timeout", {"600", first_line(server_fixture + "/llama-server"), "-m", fixtures + "/tiny.gguf", "--host",
                  "127.0.0.1", "--port", std::to_string(port), "--metrics", "-c", "4096", "-np", "4", "-t", "1"});
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  temp_dir dir;
  const auto prompts = (dir.path() / "prompts.jsonl").string();
  {
    std::ofstream out(prompts);
    for (int i = 0; i < 40; ++i)
      out << json{{"prompt", "the cat " + std::to_string(i) + " sat on the mat and"}}.dump() << "\n";
  }
  // The server loads the model in about a second: wait for /health.
  bool ready = false;
  for (int i = 0; i < 120 && !ready; ++i) {
    ready = http_get(port, "/health").has_value();
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(ready) << "llama-server did not come up:\n" << read_file(server.err_path);
  const auto r = run_ironbench({"serve",
                                "--no-save",
                                "--json",
                                "-",
                                "--base-url",
                                url,
                                "--model",
                                "tiny",
                                "--dataset-name",
                                "custom",
                                "--dataset-path",
                                prompts,
                                "--custom-output-len",
                                "64",
                                "--num-prompts",
                                "40",
                                "--max-concurrency",
                                "4",
                                "--metrics-interval",
                                "100ms",
                                "--max-lateness-ms",
                                "1000"});
  kill(server.pid, SIGTERM);
  (void)wait_for(server);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  const auto& notes = run.at("cases").at(0).at("notes");
  const auto server_metrics = json::parse(notes.at("server_metrics").get<std::string>());
  const auto point = json::parse(notes.at("result").get<std::string>());
  EXPECT_EQ(server_metrics.at("engine"), "llama.cpp") << server_metrics.dump(1).substr(0, 2000);
  const auto& m = server_metrics.at("metrics");
  for (const char* name : {"running_requests", "waiting_requests", "prompt_tokens", "generation_tokens"}) {
    EXPECT_TRUE(m.contains(name)) << name;
  }
  EXPECT_EQ(m.at("running_requests").at("series"), "llamacpp:requests_processing");
  EXPECT_GT(m.at("running_requests").at("max").get<double>(), 0) << "scraped while requests ran";
  EXPECT_LE(m.at("running_requests").at("max").get<double>(), 4);
  // The model always writes max_tokens tokens (tests/llama/make_tiny_gguf.py): the server's
  // counter rose by exactly what the client received.
  EXPECT_EQ(m.at("generation_tokens").at("increase").get<double>(), point.at("total_output_tokens").get<double>());
  EXPECT_GT(m.at("prompt_tokens").at("increase").get<double>(), 0);
  EXPECT_TRUE(server_metrics.at("raw").at("series").contains("llamacpp:n_decode_total"));
}

}  // namespace
}  // namespace ironbench::testing
