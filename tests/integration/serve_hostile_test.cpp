// ironbench serve against a hostile serve-sim: bytes and numbers no honest server sends (a raw
// 0xFF in a token's text, a token of tens of megabytes, usage of -5 or 10^18 tokens, an HTML
// page with status 200). Every run must finish, account for every request (completed + failed
// by class = sent), keep its memory bounded and say in its verdict what it could not trust.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"

namespace ironbench::testing {
namespace {

// The simulator's every 3rd request of 9 gets the fault.
const std::vector<std::string> hostile_load = {"--num-prompts",      "9", "--max-concurrency",   "3",
                                               "--random-input-len", "8", "--random-output-len", "6"};

struct hostile_serve_run {
  int exit_code = -1;
  json run;    // the run document (--json)
  json point;  // the point's vLLM result object
  std::string err;
};

// serve against `sim` with the hostile load and `extra`, its run document written to a file
// (so that a run with exit 1 still has one to read).
hostile_serve_run serve_against(const sim_process& sim, const std::vector<std::string>& extra) {
  const auto dir = make_temp_dir("ironbench_hostile_");
  std::vector<std::string> args = {"serve",  "--base-url",      sim.url(),           "--no-save",
                                   "--json", dir + "/run.json", "--max-lateness-ms", "1000"};
  args.insert(args.end(), hostile_load.begin(), hostile_load.end());
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_ironbench(args);
  hostile_serve_run out;
  out.exit_code = r.exit_code;
  out.err = r.err;
  out.run = json::parse(read_file(dir + "/run.json"));
  out.point = json::parse(out.run.at("cases").at(0).at("notes").at("result").get<std::string>());
  return out;
}

// Every request sent is completed or failed under a class.
void expect_every_request_accounted_for(const json& point, int sent) {
  const int completed = point.at("completed").get<int>(), failed = point.at("failed").get<int>();
  EXPECT_EQ(completed + failed, sent) << point.dump();
  int by_class = 0;
  for (const auto& [name, count] : point.at("errors_by_class").items()) by_class += count.get<int>();
  EXPECT_EQ(by_class, failed) << point.at("errors_by_class").dump();
}

TEST(ServeHostile, InvalidUtf8InATokensTextIsReplacedAndTheRunIsSaved) {
  sim_process sim({"--fault", "invalid-utf8", "--fault-every", "3", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  for (const bool streamed : {true, false}) {
    const auto dir = make_temp_dir("ironbench_hostile_utf8_");
    std::vector<std::string> args = {"serve",
                                     "--base-url",
                                     sim.url(),
                                     "--save-result",
                                     "--save-detailed",
                                     "--result-dir",
                                     dir + "/vllm",
                                     "--result-filename",
                                     "point.json",
                                     "--results-dir",
                                     dir + "/runs",
                                     "--db",
                                     dir + "/results.db",
                                     "--json",
                                     dir + "/run.json",
                                     "--max-lateness-ms",
                                     "1000"};
    args.insert(args.end(), hostile_load.begin(), hostile_load.end());
    if (!streamed) args.emplace_back("--no-stream");
    const auto r = run_ironbench(args);
    ASSERT_EQ(r.exit_code, 0) << (streamed ? "streamed: " : "not streamed: ") << r.err;
    // Every output was written: the vLLM result file with its texts, the run, its row.
    const auto file = json::parse(read_file(dir + "/vllm/point.json"));
    EXPECT_EQ(file.at("completed"), 9);
    EXPECT_EQ(file.at("responses_with_invalid_utf8"), 3) << streamed;
    int replaced = 0;
    for (const auto& text : file.at("generated_texts")) {
      if (text.get<std::string>().find("\xEF\xBF\xBD") != std::string::npos) ++replaced;  // U+FFFD
    }
    EXPECT_EQ(replaced, 3) << file.at("generated_texts").dump();
    EXPECT_EQ(lines_of(read_file(dir + "/vllm/point.json.requests.jsonl")).size(), 9u);
    EXPECT_EQ(json::parse(read_file(dir + "/run.json")).at("cases").size(), 1u);
    const auto listed = run_ironbench({"results", "list", "--db", dir + "/results.db"});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_NE(listed.out.find("1 run(s)"), std::string::npos) << listed.out;
    EXPECT_FALSE(std::filesystem::is_empty(dir + "/runs"));
  }
}

TEST(ServeHostile, ImplausibleUsageIsFlaggedCountedAndTheVerdictSaysSo) {
  for (const std::string fault : {"usage-negative", "usage-huge"}) {
    sim_process sim({"--fault", fault, "--fault-every", "3", "--decode-base-ms", "2"});
    ASSERT_GT(sim.port(), 0);
    const auto r = serve_against(sim, {});
    EXPECT_EQ(r.exit_code, 1) << fault << ": the point is INVALID\n" << r.err;
    const auto& p = r.point;
    expect_every_request_accounted_for(p, 9);
    EXPECT_EQ(p.at("completed"), 9) << fault;
    EXPECT_EQ(p.at("implausible_usage_requests"), 3) << fault;
    // The flagged requests count what the client saw: 6 token events each, as the others report.
    EXPECT_EQ(p.at("total_output_tokens"), 9 * 6) << fault;
    EXPECT_GT(p.at("output_throughput").get<double>(), 0);
    EXPECT_LT(p.at("output_throughput").get<double>(), 1e6) << fault;
    EXPECT_EQ(p.at("client").at("valid"), false) << fault;
    EXPECT_NE(p.at("client").at("invalid_reason").get<std::string>().find("implausible usage for 3 of 9"),
              std::string::npos)
        << p.at("client").dump();
    EXPECT_EQ(r.run.at("cases").at(0).at("status"), "invalid") << fault;
  }
}

TEST(ServeHostile, AnHtmlPageWithStatus200IsMalformedNotTruncated) {
  sim_process sim({"--fault", "html-200", "--fault-every", "3", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  for (const bool streamed : {true, false}) {
    const auto r = serve_against(sim, streamed ? std::vector<std::string>{} : std::vector<std::string>{"--no-stream"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_every_request_accounted_for(r.point, 9);
    EXPECT_EQ(r.point.at("completed"), 6);
    EXPECT_EQ(r.point.at("errors_by_class").value("malformed", 0), 3) << r.point.at("errors_by_class").dump();
  }
}

TEST(ServeHostile, AResponseOverTheLimitFailsAsOversizedAndTheRunGoesOn) {
  sim_process sim({"--fault", "huge-chunk", "--fault-bytes", "2M", "--fault-every", "3", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  for (const bool streamed : {true, false}) {
    std::vector<std::string> extra = {"--max-response-bytes", "1M"};
    if (!streamed) extra.emplace_back("--no-stream");
    const auto r = serve_against(sim, extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_every_request_accounted_for(r.point, 9);
    EXPECT_EQ(r.point.at("completed"), 6) << streamed;
    EXPECT_EQ(r.point.at("errors_by_class").value("oversized", 0), 3) << r.point.at("errors_by_class").dump();
  }
  // Under the default limit (64 MiB) the same responses are fine.
  const auto r = serve_against(sim, {});
  EXPECT_EQ(r.point.at("completed"), 9) << r.point.at("errors_by_class").dump();
}

// The highest resident set size (VmHWM, kB) `process` reached while it ran, polled until it
// exits (it is left for wait_for to collect).
long peak_rss_kb_until_exit(const started_process& process) {
  long peak = 0;
  siginfo_t info{};
  while (true) {
    std::ifstream status("/proc/" + std::to_string(process.pid) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmHWM:", 0) == 0) peak = std::max(peak, std::stol(line.substr(6)));
    }
    info.si_pid = 0;
    if (waitid(P_PID, static_cast<id_t>(process.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0) {
      return peak;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Tokens of 25 MB each: the client counts them and keeps none, so 12 of them (300 MB) leave its
// memory where one leaves it (measured: 279 MB peak RSS; 964 MB when every text was kept).
// Under the sanitizers freed memory is held in quarantine, and the run is scaled down: there
// only the accounting is checked.
TEST(ServeHostile, HugeTokensAreCountedNotKept) {
#if IRONBENCH_SANITIZED_BUILD
  const std::string bytes = "4M";
  const int requests = 5;
#else
  const std::string bytes = "25M";
  const int requests = 12;
#endif
  sim_process sim({"--fault", "huge-chunk", "--fault-bytes", bytes, "--fault-every", "1", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto process = start_ironbench(
      {"serve", "--base-url", sim.url(), "--no-save", "--json", "-", "--max-lateness-ms", "1000", "--num-prompts",
       std::to_string(requests), "--max-concurrency", "1", "--random-input-len", "8", "--random-output-len", "4"});
  const long peak_kb = peak_rss_kb_until_exit(process);
  const auto r = wait_for(process);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  const auto point = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
  expect_every_request_accounted_for(point, requests);
  EXPECT_EQ(point.at("completed"), requests);
  EXPECT_EQ(point.at("total_output_tokens"), requests * 4);
#if !IRONBENCH_SANITIZED_BUILD
  // Kept, the texts alone would be 300 MB; counted, a few copies of one 25 MB token at a time.
  EXPECT_LT(peak_kb, 400 * 1024) << "peak RSS " << peak_kb / 1024 << " MiB";
#endif
  EXPECT_GT(peak_kb, 0);
}

// --save-detailed keeps the texts for the result file only up to --max-kept-text-bytes in
// all: tokens of 25 MB each, 12 of them, under a 60 MB budget keep two texts; the other ten
// are counted in generated_texts_not_kept (their records stay), and the client's peak RSS
// stays bounded (measured: 407 MB; 1.6 GB with no limit, every text kept and written).
TEST(ServeHostile, SavedTextsAreKeptWithinTheirBudgetAndTheRestCounted) {
#if IRONBENCH_SANITIZED_BUILD
  const std::string bytes = "4M", budget = "10M";
  const std::size_t token_bytes = 4 << 20;
  const int requests = 5;
#else
  const std::string bytes = "25M", budget = "60M";
  const std::size_t token_bytes = 25 << 20;
  const int requests = 12;
#endif
  sim_process sim({"--fault", "huge-chunk", "--fault-bytes", bytes, "--fault-every", "1", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto dir = make_temp_dir("ironbench_hostile_kept_");
  const auto process = start_ironbench({"serve",
                                        "--base-url",
                                        sim.url(),
                                        "--no-save",
                                        "--save-result",
                                        "--save-detailed",
                                        "--max-kept-text-bytes",
                                        budget,
                                        "--result-dir",
                                        dir,
                                        "--result-filename",
                                        "point.json",
                                        "--json",
                                        "-",
                                        "--max-lateness-ms",
                                        "1000",
                                        "--num-prompts",
                                        std::to_string(requests),
                                        "--max-concurrency",
                                        "1",
                                        "--random-input-len",
                                        "8",
                                        "--random-output-len",
                                        "4"});
  const long peak_kb = peak_rss_kb_until_exit(process);
  const auto r = wait_for(process);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("generated_texts_not_kept"), std::string::npos) << "said on the console: " << r.err;
  const auto file = json::parse(read_file(dir + "/point.json"));
  expect_every_request_accounted_for(file, requests);
  EXPECT_EQ(file.at("completed"), requests);
  EXPECT_EQ(file.at("total_output_tokens"), requests * 4);
  ASSERT_EQ(file.at("generated_texts").size(), static_cast<std::size_t>(requests));
  int kept = 0;
  std::size_t kept_bytes = 0;
  for (const auto& text : file.at("generated_texts")) {
    const auto size = text.get<std::string>().size();
    if (size == 0) continue;
    ++kept;
    kept_bytes += size;
    EXPECT_GE(size, token_bytes);
  }
  EXPECT_EQ(kept, 2);
  EXPECT_LE(kept_bytes, token_bytes * 12 / 5) << "within the budget";
  EXPECT_EQ(file.at("generated_texts_not_kept"), requests - 2);
  EXPECT_EQ(file.at("output_lens").size(), static_cast<std::size_t>(requests)) << "every record stays";
#if !IRONBENCH_SANITIZED_BUILD
  // Kept, the texts would be 300 MB, and a few times that while the file is written.
  EXPECT_LT(peak_kb, 600 * 1024) << "peak RSS " << peak_kb / 1024 << " MiB";
#endif
  EXPECT_GT(peak_kb, 0);
  std::filesystem::remove_all(dir);
}

TEST(ServeHostile, ImpossibleSizesAndInjectedHeadersAreRefusedBeforeAnythingIsSent) {
  // 1000 prompts of 200 million tokens: terabytes, refused with the estimate (no server needed).
  const auto huge = run_ironbench({"serve", "--base-url", "http://127.0.0.1:1", "--no-save", "--random-input-len",
                                   "200000000", "--num-prompts", "1000"});
  EXPECT_EQ(huge.exit_code, 2) << huge.err;
  EXPECT_EQ(lines_of(huge.err).size(), 1u) << huge.err;
  EXPECT_NE(huge.err.find("need about"), std::string::npos) << huge.err;
  EXPECT_NE(huge.err.find("200000000 tokens"), std::string::npos) << huge.err;
  const auto outputs = run_ironbench({"serve", "--base-url", "http://127.0.0.1:1", "--no-save", "--random-output-len",
                                      "4000000000000", "--num-prompts", "1000"});
  EXPECT_EQ(outputs.exit_code, 2) << outputs.err;
  // A trace's lengths are numbers in its file: 50 lines of 10^9 input tokens (each line's
  // limit) are sized after reading, before a prompt is built.
  const auto dir = make_temp_dir("ironbench_hostile_trace_");
  {
    std::ofstream trace_file(dir + "/trace.jsonl");
    for (int i = 0; i < 50; ++i) {
      trace_file << "{\"timestamp\": " << i << ", \"input_length\": 1000000000, \"output_length\": 8}\n";
    }
  }
  const auto trace = run_ironbench({"serve", "--base-url", "http://127.0.0.1:1", "--no-save", "--dataset-name", "trace",
                                    "--dataset-path", dir + "/trace.jsonl"});
  EXPECT_EQ(trace.exit_code, 2) << trace.err;
  EXPECT_EQ(lines_of(trace.err).size(), 1u) << trace.err;
  EXPECT_NE(trace.err.find("the trace dataset's requests need about"), std::string::npos) << trace.err;
  std::filesystem::remove_all(dir);
  // A line break in a header's value would send a header of its own.
  for (const std::string header : {"X-Trace: a\r\nX-Injected: 1", "X-Trace: a\nb", "X Trace: a", ": a"}) {
    const auto r = run_ironbench({"serve", "--base-url", "http://127.0.0.1:1", "--no-save", "--header", header});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--header"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("X-Injected"), std::string::npos) << "the value is not repeated: " << r.err;
  }
}

// A stream that ends cleanly after some tokens, without a finish_reason, [DONE] or usage, was
// cut short: truncated, not completed. Above --max-failed-share the point is INVALID.
TEST(ServeHostile, AStreamEndingWithoutItsEndIsTruncatedAndTooManyFailuresAreInvalid) {
  sim_process sim({"--fault", "end-early", "--fault-every", "3", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto r = serve_against(sim, {});
  EXPECT_EQ(r.exit_code, 0) << "3 of 9 is within the default share, 0.5\n" << r.err;
  expect_every_request_accounted_for(r.point, 9);
  EXPECT_EQ(r.point.at("completed"), 6);
  EXPECT_EQ(r.point.at("errors_by_class").value("truncated", 0), 3) << r.point.at("errors_by_class").dump();
  EXPECT_EQ(r.point.at("total_output_tokens"), 6 * 6);
  const auto strict = serve_against(sim, {"--max-failed-share", "0.2"});
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
  EXPECT_EQ(strict.run.at("cases").at(0).at("status"), "invalid");
  const auto reason = strict.point.at("client").at("invalid_reason").get<std::string>();
  EXPECT_NE(reason.find("3 of 9 requests failed (33 %), more than --max-failed-share 0.2"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find("truncated"), std::string::npos) << reason;
}

// Settings no one can mean are refused in one line before anything is sent.
TEST(ServeHostile, SettingsThatCannotBeMeantAreUsageErrors) {
  const auto dir = make_temp_dir("ironbench_hostile_settings_");
  {
    std::ofstream far(dir + "/far.jsonl");
    far << "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 4}\n"
        << "{\"timestamp\": 1e18, \"input_length\": 8, \"output_length\": 4}\n";
    std::ofstream near(dir + "/near.jsonl");
    near << "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 4}\n"
         << "{\"timestamp\": 10, \"input_length\": 8, \"output_length\": 4}\n";
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--num-warmups", "-1"}, "--num-warmups must be 0 or more"},
      {{"--max-failed-share", "1.5"}, "--max-failed-share"},
      {{"--request-rate", "1e-300"}, "7 days at most"},
      {{"--dataset-name", "trace", "--dataset-path", dir + "/far.jsonl"}, "7 days at most"},
      {{"--dataset-name", "trace", "--dataset-path", dir + "/near.jsonl", "--trace-speed", "1e-300"}, "7 days at most"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = {"serve", "--base-url", "http://127.0.0.1:1", "--no-save"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_ironbench(args);
    EXPECT_EQ(r.exit_code, 2) << extra.at(0) << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no request"), std::string::npos) << "nothing was sent: " << r.err;
  }
  std::filesystem::remove_all(dir);
}

// Ctrl-C during a point: what it measured so far is shown, never as VALID.
TEST(ServeHostile, AnInterruptedPointIsNeverValid) {
  sim_process sim({"--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto process = start_ironbench({"serve", "--base-url", sim.url(), "--no-save", "--num-prompts", "100",
                                        "--request-rate", "4", "--random-input-len", "8", "--random-output-len", "4",
                                        "--max-lateness-ms", "1000", "--progress-interval", "0.1s"});
  // Once a request is done (the client's progress line says so), not after a fixed delay.
  EXPECT_TRUE(wait_for_output(process, [](const std::string& err) { return requests_done_in(err) > 0; }))
      << read_file(process.err_path);
  kill(process.pid, SIGINT);
  const auto r = wait_for(process);
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(Verdict:\s+VALID)"))) << r.out;
  EXPECT_NE(r.out.find("INVALID: interrupted (Ctrl-C) with"), std::string::npos) << r.out;
}

// An explicit Authorization header is the one sent: an API key in the environment or a
// password in --base-url does not replace it (the run records where the credential came from).
TEST(ServeHostile, AnExplicitCredentialIsNotReplaced) {
  sim_process sim({"--decode-base-ms", "1"});
  ASSERT_GT(sim.port(), 0);
  setenv("IRONBENCH_TEST_API_KEY", "from-the-environment", 1);
  const std::string plain = sim.url();
  const std::string with_password = "http://user:secret@127.0.0.1:" + std::to_string(sim.port());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--base-url", plain, "--header", "Authorization: Bearer X"}, "--header"},
      {{"--base-url", with_password, "--header", "authorization: Bearer X"}, "--header"},
      {{"--base-url", with_password}, "user and password in --base-url"},
      {{"--base-url", plain}, "API key from $IRONBENCH_TEST_API_KEY"},
  };
  const auto dir = make_temp_dir("ironbench_hostile_credentials_");
  for (const auto& [extra, source] : cases) {
    std::vector<std::string> args = {
        "serve",         "--no-save", "--json", dir + "/run.json", "--api-key-env", "IRONBENCH_TEST_API_KEY",
        "--num-prompts", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_ironbench(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto run = json::parse(read_file(dir + "/run.json"));
    EXPECT_EQ(run.at("settings").at("authorization"), source) << run.at("settings").dump();
    EXPECT_EQ(run.dump().find("from-the-environment"), std::string::npos);
    EXPECT_EQ(run.dump().find("secret"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
  unsetenv("IRONBENCH_TEST_API_KEY");
}

}  // namespace
}  // namespace ironbench::testing
