// ironbench serve scraping llama.cpp's own server (llama-server --metrics, built by
// tests/llama/prepare_server_binary.sh) with the tiny model of tests/llama/prepare.sh: its
// series must appear under the common names, the prefill and decode means from its seconds
// counters must agree with the server's own per-request timings (the lines it logs for each
// request, which its responses carry as "timings"), and its LoRA adapters are driven by the
// per-request "lora" field. Slow (the first build compiles llama.cpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
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

// llama-server on a free port with the tiny model and `extra` arguments, once /health answers
// (the model loads in about a second); port 0 and the server's log when it did not come up.
struct llama_server {
  started_process process;
  int port = 0;
  std::string url;
};
llama_server start_llama_server(const std::vector<std::string>& extra) {
  llama_server s;
  s.port = free_port();
  std::vector<std::string> args = {"600",       first_line(server_fixture + "/llama-server"),
                                   "-m",        fixtures + "/tiny.gguf",
                                   "--host",    "127.0.0.1",
                                   "--port",    std::to_string(s.port),
                                   "--metrics", "-c",
                                   "4096",      "-t",
                                   "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  s.process = start_program("timeout", args);
  s.url = "http://127.0.0.1:" + std::to_string(s.port);
  bool ready = false;
  for (int i = 0; i < 120 && !ready; ++i) {
    ready = http_get(s.port, "/health").has_value();
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  if (!ready) s.port = 0;
  return s;
}

std::string stop(const llama_server& s) {
  kill(s.process.pid, SIGTERM);
  (void)wait_for(s.process);
  return read_file(s.process.err_path);
}

// `count` prompts of the custom dataset, one per line.
std::string write_prompts(const temp_dir& dir, int count) {
  const auto prompts = (dir.path() / "prompts.jsonl").string();
  std::ofstream out(prompts);
  for (int i = 0; i < count; ++i)
    out << json{{"prompt", "the cat " + std::to_string(i) + " sat on the mat and"}}.dump() << "\n";
  return prompts;
}

TEST(LlamaMetricsSlow, LlamaServersSeriesAppearUnderTheCommonNames) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  const auto server = start_llama_server({"-np", "4"});
  ASSERT_NE(server.port, 0) << "llama-server did not come up:\n" << stop(server);
  const std::string url = server.url;
  temp_dir dir;
  const auto prompts = write_prompts(dir, 40);
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
  (void)stop(server);
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
  // Its prefix-cache share is read (the prompts share "the cat"); the features it does not
  // use or export have no row: no drafts without a draft model, no KV-cache usage today.
  ASSERT_TRUE(m.contains("prefix_cache_hit_percent")) << m.dump(1);
  EXPECT_LT(m.at("prefix_cache_hit_percent").at("mean").get<double>(), 100);
  EXPECT_FALSE(m.contains("spec_decode_acceptance_percent"));
  EXPECT_EQ(r.out.find("spec_decode_acceptance_percent (% mean / max):"), std::string::npos);
  EXPECT_TRUE(server_metrics.at("stage_data").get<bool>());
  EXPECT_EQ(point.at("ttft_breakdown").at("roles").at("all").at("prefill").at("source"), "counter");
}

// A sweep of two points (max concurrency 1 and 2) of 16 random prompts of 48 tokens of the
// tiny model's vocabulary each: every point's server hit share (llama.cpp's cached prompt
// tokens against all its prompt tokens), and whether the console warned of a cached point.
struct cache_sweep {
  int exit_code = -1;
  std::string err;
  std::vector<double> hit_percent;
  bool warned = false;
};
cache_sweep sweep_hit_shares(const std::string& url, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"serve",
                                   "--no-save",
                                   "--json",
                                   "-",
                                   "--base-url",
                                   url,
                                   "--model",
                                   "tiny",
                                   "--tokenizer",
                                   fixtures + "/tokenizer.json",
                                   "--random-input-len",
                                   "48",
                                   "--random-output-len",
                                   "4",
                                   "--num-prompts",
                                   "16",
                                   "--max-concurrency",
                                   "1,2",
                                   "--metrics-interval",
                                   "100ms",
                                   "--max-lateness-ms",
                                   "1000"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_ironbench(args);
  cache_sweep out{r.exit_code, r.err, {}, r.err.find("served from the server's prefix cache") != std::string::npos};
  if (r.exit_code != 0) return out;
  const auto run = json::parse(r.out);
  for (const auto& c : run.at("cases")) {
    const auto point = json::parse(c.at("notes").at("result").get<std::string>());
    out.hit_percent.push_back(point.value("server_prefix_cache_hit_percent_mean", -1.0));
  }
  return out;
}

TEST(LlamaMetricsSlow, EachPointsPromptsAreItsOwnSoTheServersCacheServesNoneOfThem) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  const auto server = start_llama_server({"-np", "2"});
  ASSERT_NE(server.port, 0) << "llama-server did not come up:\n" << stop(server);
  const auto fresh = sweep_hit_shares(server.url, {});
  // The same prompts at both points: the second is served from the cache the first filled.
  const auto reused = sweep_hit_shares(server.url, {"--reuse-prompts", "--seed", "7"});
  (void)stop(server);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  ASSERT_EQ(fresh.hit_percent.size(), 2U) << fresh.err;
  // Random prompts share a token or two at most (a prompt's first word with another's).
  for (double hit : fresh.hit_percent) {
    EXPECT_GE(hit, 0) << "no hit share read";
    EXPECT_LT(hit, 10);
  }
  EXPECT_FALSE(fresh.warned) << fresh.err;
  ASSERT_EQ(reused.exit_code, 0) << reused.err;
  ASSERT_EQ(reused.hit_percent.size(), 2U) << reused.err;
  EXPECT_GT(reused.hit_percent.at(1), 50) << "llama-server keeps the prompts it served";
  EXPECT_TRUE(reused.warned) << reused.err;
}

// Each request's "prompt eval time" and "eval time" (ms) as llama-server logs them when it ends.
struct logged_timings {
  std::vector<double> prompt_ms, predicted_ms;
};
logged_timings timings_in_log(const std::string& log) {
  logged_timings t;
  static const std::regex line(R"((prompt eval|       eval) time = +([0-9.]+) ms)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it) {
    ((*it)[1] == "prompt eval" ? t.prompt_ms : t.predicted_ms).push_back(std::stod((*it)[2]));
  }
  return t;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

TEST(LlamaMetricsSlow, PrefillAndDecodeMeansFromCountersAgreeWithTheServersPerRequestTimings) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  // One slot, one request at a time: the prompt batches are each one request's prompt, so the
  // prompt-seconds counter and the per-request prompt times measure the same intervals.
  const auto server = start_llama_server({"-np", "1"});
  ASSERT_NE(server.port, 0) << "llama-server did not come up:\n" << stop(server);
  temp_dir dir;
  const int requests = 12;
  const auto r = run_ironbench({"serve",
                                "--no-save",
                                "--json",
                                "-",
                                "--base-url",
                                server.url,
                                "--model",
                                "tiny",
                                "--dataset-name",
                                "custom",
                                "--dataset-path",
                                write_prompts(dir, requests),
                                "--custom-output-len",
                                "48",
                                "--num-prompts",
                                std::to_string(requests),
                                "--num-warmups",
                                "0",
                                "--max-concurrency",
                                "1",
                                "--metrics-interval",
                                "100ms",
                                "--max-lateness-ms",
                                "1000"});
  // The server logs each request's times when it releases the request's slot, from a logging
  // thread of its own: wait until every request's lines are out.
  (void)wait_for_output(server.process, [&](const std::string& log) {
    return timings_in_log(log).predicted_ms.size() >= static_cast<std::size_t>(requests);
  });
  const auto log = stop(server);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto timings = timings_in_log(log);
  ASSERT_EQ(timings.prompt_ms.size(), static_cast<std::size_t>(requests)) << log.substr(0, 4000);
  ASSERT_EQ(timings.predicted_ms.size(), static_cast<std::size_t>(requests));
  const auto point = json::parse(json::parse(r.out).at("cases").at(0).at("notes").at("result").get<std::string>());
  const double prefill = point.at("server_prefill_time_mean_ms").get<double>();
  const double decode = point.at("server_decode_time_mean_ms").get<double>();
  // Decode: the counter adds up exactly the per-request generation times (logged to 0.01 ms).
  EXPECT_NEAR(decode, mean(timings.predicted_ms), 0.01 * mean(timings.predicted_ms) + 0.02);
  // Prefill: the counter starts at the batch's decode, a request's time at its slot's start,
  // a fraction of a millisecond earlier (1.35 against 1.44 ms measured): never longer, and of
  // its size (a time per token, or not divided by the requests, would be far off either way;
  // the bound leaves room for the server's thread being preempted on a loaded machine).
  EXPECT_LE(prefill, mean(timings.prompt_ms) + 0.02);
  EXPECT_GT(prefill, 0.25 * mean(timings.prompt_ms));
  EXPECT_NE(r.err.find("prefill (ms, mean from counters):"), std::string::npos) << r.err;
}

TEST(LlamaMetricsSlow, AdaptersAreDrivenByTheLoraFieldWithIdsFromTheServersList) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  for (const char* file : {"/tiny-lora-sql.gguf", "/tiny-lora-chat.gguf"}) {
    if (!std::filesystem::exists(fixtures + file)) GTEST_SKIP() << "no " << file << " in " << fixtures;
  }
  const auto server = start_llama_server(
      {"-np", "2", "--lora", fixtures + "/tiny-lora-sql.gguf", "--lora", fixtures + "/tiny-lora-chat.gguf"});
  ASSERT_NE(server.port, 0) << "llama-server did not come up:\n" << stop(server);
  const auto list = http_get(server.port, "/lora-adapters");
  if (!list || !json::parse(*list, nullptr, false).is_array()) {
    (void)stop(server);
    GTEST_SKIP() << "this llama-server build lists no LoRA adapters at GET /lora-adapters";
  }
  temp_dir dir;
  const auto prompts = write_prompts(dir, 12);
  const auto serve = [&](const std::vector<std::string>& more) {
    std::vector<std::string> args = {"serve",
                                     "--no-save",
                                     "--json",
                                     "-",
                                     "--base-url",
                                     server.url,
                                     "--model",
                                     "tiny",
                                     "--dataset-name",
                                     "custom",
                                     "--dataset-path",
                                     prompts,
                                     "--custom-output-len",
                                     "16",
                                     "--num-prompts",
                                     "12",
                                     "--max-concurrency",
                                     "2",
                                     "--max-lateness-ms",
                                     "1000"};
    args.insert(args.end(), more.begin(), more.end());
    return run_ironbench(args);
  };
  // By file name without .gguf and by id, the way GET /lora-adapters lists them.
  const auto good = serve({"--lora-modules", "tiny-lora-sql,1"});
  // An adapter the server lacks: one line naming what it lists, before anything is sent.
  const auto missing = serve({"--lora-modules", "tiny-lora-sql,tone"});
  // By model name, as vLLM is driven: llama-server's model list names no adapter.
  const auto by_name = serve({"--lora-modules", "tiny-lora-sql", "--lora-by", "model"});
  (void)stop(server);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const auto point = json::parse(json::parse(good.out).at("cases").at(0).at("notes").at("result").get<std::string>());
  const auto& per = point.at("per_adapter");
  EXPECT_EQ(per.at("tiny-lora-sql").at("completed"), 6) << per.dump(1);
  EXPECT_EQ(per.at("1").at("completed"), 6) << per.dump(1);
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("has no LoRA adapter tone (GET /lora-adapters lists: 0 ("), std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find('\n'), missing.err.rfind('\n')) << "one line: " << missing.err;
  EXPECT_EQ(by_name.exit_code, 1) << by_name.err;
  EXPECT_NE(by_name.err.find("does not serve LoRA adapter tiny-lora-sql"), std::string::npos) << by_name.err;
}

TEST(LlamaMetricsSlow, AServerWithoutAdaptersIsNamedInOneLine) {
  if (const auto problem = fixture_problem(); !problem.empty()) GTEST_SKIP() << problem;
  const auto server = start_llama_server({"-np", "1"});
  ASSERT_NE(server.port, 0) << "llama-server did not come up:\n" << stop(server);
  temp_dir dir;
  const auto r = run_ironbench({"serve", "--no-save", "--base-url", server.url, "--model", "tiny", "--dataset-name",
                                "custom", "--dataset-path", write_prompts(dir, 2), "--num-prompts", "2",
                                "--lora-modules", "sql", "--lora-by", "lora-field"});
  (void)stop(server);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("has no LoRA adapter sql (GET /lora-adapters lists: none)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ironbench::testing
