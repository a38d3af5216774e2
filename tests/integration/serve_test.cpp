// ironbench serve against ironbench serve-sim, both as real processes on loopback.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "core/json.hpp"
#include "process.hpp"
#include "run_json.hpp"
#include "sim_process.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// Tests other than the timing one do not judge the client's lateness: sanitizer builds are
// many times slower than the release build.
json serve_json(const std::vector<std::string>& args, int* exit_code = nullptr, const char* max_lateness_ms = "1000") {
  std::vector<std::string> all = {"serve", "--no-save", "--json", "-", "--max-lateness-ms", max_lateness_ms};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_ironbench(all);
  if (exit_code != nullptr) *exit_code = r.exit_code;
  EXPECT_TRUE(r.exit_code == 0 || exit_code != nullptr) << r.err << r.out;
  return json::parse(r.out);
}

// 50 requests/s into one concurrency slot, each request taking ~90 ms: they queue in the
// client. From the actual send each looks as fast as the first; from its intended send time
// the wait shows.
TEST(Serve, LatencyFromTheIntendedSendTimeCountsTheWaitForASlot) {
  sim_process sim({"--decode-base-ms", "10"});
  ASSERT_GT(sim.port(), 0);
  const auto run = serve_json({"--base-url", sim.url(), "--num-prompts", "10", "--max-concurrency", "1",
                               "--request-rate", "50", "--random-input-len", "16", "--random-output-len", "8"});
  const auto p = point_of(run);
  EXPECT_EQ(p.at("completed"), 10);
  const double e2el = p.at("median_e2el_ms").get<double>();
  EXPECT_GT(p.at("median_schedule_delay_ms").get<double>(), 100) << p.dump(1);
  EXPECT_GT(p.at("median_e2el_from_schedule_ms").get<double>(), e2el + 100);
  EXPECT_GT(p.at("median_ttft_from_schedule_ms").get<double>(), p.at("median_ttft_ms").get<double>() + 100);
  // The wait for a slot is not the client's lateness: the point stays VALID, judged against
  // the limit it records, with the host's CPU competition beside it.
  EXPECT_EQ(p.at("client").at("valid"), true) << p.at("client").dump(1);
  EXPECT_GE(p.at("client").at("send_lateness_limit_ms").get<double>(), 1000);
  EXPECT_NE(p.at("client").at("send_lateness_limit_basis").get<std::string>().find("--max-lateness-ms"),
            std::string::npos);
  EXPECT_TRUE(p.at("client").at("host_others_cpu_percent").is_number());
  EXPECT_TRUE(p.at("client").at("host_steal_percent").is_number());
  const auto& c = run.at("cases").at(0);
  bool has_from_schedule = false;
  for (const auto& m : c.at("metrics")) has_from_schedule |= m.at("name") == "median_e2el_from_schedule_ms";
  EXPECT_TRUE(has_from_schedule) << c.dump(1);

  // No schedule (request rate inf): nothing to measure from.
  const auto closed = point_of(serve_json({"--base-url", sim.url(), "--num-prompts", "4", "--max-concurrency", "2",
                                           "--random-input-len", "16", "--random-output-len", "4"}));
  EXPECT_FALSE(closed.contains("median_e2el_from_schedule_ms"));
}

// Not on a terminal: a plain progress line per interval, to standard error, each counting
// more requests done.
TEST(Serve, ProgressLinesInALogCountTheRequestsDone) {
  sim_process sim({"--decode-base-ms", "20"});
  ASSERT_GT(sim.port(), 0);
  const auto r = run_ironbench({"serve", "--base-url", sim.url(), "--no-save", "--num-prompts", "12",
                                "--max-concurrency", "2", "--random-input-len", "16", "--random-output-len", "8",
                                "--progress-interval", "0.2s", "--max-lateness-ms", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  static const std::regex line(
      R"(serve: (\d+)/12 done, (\d+) running, 0 failed, [0-9.]+ s, ETA (-|\d+ s), \d+ output tok/s)");
  int lines = 0, last_done = -1;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), line), end; it != end; ++it) {
    const int done = std::stoi((*it)[1].str());
    EXPECT_GE(done, last_done);
    EXPECT_LE(std::stoi((*it)[2].str()), 2);
    last_done = done;
    ++lines;
  }
  // 12 requests of ~180 ms, two at a time: about a second, so several lines.
  EXPECT_GE(lines, 3) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "no terminal: no carriage returns";
}

// A lone request at a time against serve-sim's step model: the counts exactly; the times from
// the send no earlier than the model allows (its first step starts at the arrival, its timer
// never fires early) and late by at most what a loaded machine adds (docs/testing.md, "Tests
// that judge time": on an idle machine within half a millisecond).
constexpr double exact_times_floor_ms = 0.2;          // the clocks' resolution and the loopback
constexpr double exact_times_late_ms = 6.0;           // the TTFT
constexpr double exact_times_step_ms = 2.0;           // ITL and TPOT, either way
constexpr double exact_times_lateness_p99_ms = 7.0;   // the client's p99 send lateness
constexpr double exact_times_read_late_tokens = 5.0;  // of 320 token events

TEST(ServeTimed, MeasuresTheSimulatorsExactTimes) {
#if IRONBENCH_SANITIZED_BUILD
  GTEST_SKIP() << "timing exactness is judged in the release build: sanitizers slow the client and the server";
#endif
  // A lone request: TTFT = 256 / 50000 s + 8 ms + 0.05 ms = 13.17 ms; ITL = 8.05 ms.
  sim_process sim({"--prefill-tokens-per-s", "50000", "--decode-base-ms", "8", "--decode-per-seq-ms", "0.05"});
  ASSERT_GT(sim.port(), 0);
  int exit_code = 0;
  const auto run = serve_json({"--base-url", sim.url(), "--num-prompts", "20", "--max-concurrency", "1",
                               "--random-input-len", "256", "--random-output-len", "16", "--num-warmups", "2"},
                              &exit_code, "1000");
  const auto p = point_of(run);
  EXPECT_EQ(exit_code, 0);
  EXPECT_EQ(p.at("completed"), 20);
  EXPECT_EQ(p.at("total_output_tokens"), 20 * 16);
  const double ttft = p.at("median_ttft_ms").get<double>();
  expect_time_not_below("median TTFT not before the step model", ttft, 13.17, exact_times_floor_ms);
  expect_time_not_above("median TTFT late", ttft, 13.17, exact_times_late_ms);
  expect_time_near("mean ITL", p.at("mean_itl_ms").get<double>(), 8.05, exact_times_step_ms);
  expect_time_near("median TPOT", p.at("median_tpot_ms").get<double>(), 8.05, exact_times_step_ms);
  // The client kept its schedule (the point judged VALID against --max-lateness-ms 1000 above;
  // its p99 send lateness against the measured tolerance here).
  EXPECT_EQ(p.at("client").at("valid"), true) << p.dump();
  expect_time_not_above("client p99 send lateness", p.at("client").at("send_lateness_p99_ms").get<double>(), 0,
                        exact_times_lateness_p99_ms);
  // serve-sim stamps its events: the client's own ITL error against them is small.
  const auto& truth = p.at("client").at("ground_truth");
  EXPECT_EQ(truth.at("stamped_token_events"), 20 * 16);
  expect_time_not_above("p50 ITL error against serve-sim's stamps", truth.at("itl_error_p50_ms").get<double>(), 0,
                        exact_times_step_ms);
  // Reads are timed by the kernel's receive stamps (all but the first few, at most: the
  // kernel turns stamping on a moment after the first socket asks). A token read together with
  // a later one waited for it: none on an idle machine, a few where the client ran a step late.
  EXPECT_GT(p.at("client").at("kernel_receive_stamp_share").get<double>(), 0.9);
  expect_time_not_above("token events read with a later one",
                        p.at("client").at("token_events_read_with_a_later_one").get<double>(), 0,
                        exact_times_read_late_tokens, "events");
}

TEST(Serve, BatchedSimulatorWritesStillDeliverEveryTokenInOrder) {
  // serve-sim --batch-writes leaves its writes to the event loop: the same replies, the
  // stamps only earlier than the writes (delivery delays of a step's queue at most).
  sim_process sim({"--batch-writes", "--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto p = point_of(serve_json({"--base-url", sim.url(), "--num-prompts", "24", "--max-concurrency", "8",
                                      "--random-input-len", "16", "--random-output-len", "12"}));
  EXPECT_EQ(p.at("completed"), 24);
  EXPECT_EQ(p.at("total_output_tokens"), 24 * 12);
  EXPECT_EQ(p.at("client").at("ground_truth").at("stamped_token_events"), 24 * 12);
  EXPECT_GE(p.at("client").at("ground_truth").at("delivery_delay_p50_ms").get<double>(), 0.0);
}

TEST(Serve, EveryFaultIsAFailedRequestOfItsClassAndTheRunFinishes) {
  const std::vector<std::pair<std::string, std::string>> faults = {{"http-429", "http_429"},
                                                                   {"http-500", "http_5xx"},
                                                                   {"truncate", "truncated"},
                                                                   {"malformed", "malformed"},
                                                                   {"stall", "stalled"}};
  for (const auto& [fault, error_class] : faults) {
    sim_process sim({"--fault", fault, "--fault-every", "3", "--decode-base-ms", "2"});
    ASSERT_GT(sim.port(), 0);
    const auto run = serve_json({"--base-url", sim.url(), "--num-prompts", "9", "--max-concurrency", "3",
                                 "--random-input-len", "16", "--random-output-len", "6", "--stall-timeout", "1s"});
    const auto p = point_of(run);
    EXPECT_EQ(p.at("failed"), 3) << fault << ": " << p.dump();
    EXPECT_EQ(p.at("completed"), 6) << fault;
    EXPECT_EQ(p.at("errors_by_class").value(error_class, 0), 3) << fault << ": " << p.at("errors_by_class").dump();
  }
  int code = 0;
  const auto refused = serve_json({"--base-url", "http://127.0.0.1:1", "--num-prompts", "3"}, &code);
  EXPECT_EQ(point_of(refused).at("errors_by_class").value("connect", 0), 3);
  // Refused within a millisecond: the verdict names the failures, not a "saturated" client
  // whose CPU share over so short a point means nothing.
  const auto console = run_ironbench({"serve", "--base-url", "http://127.0.0.1:1", "--num-prompts", "3", "--no-save"});
  EXPECT_NE(console.out.find("INVALID: 3 of 3 requests failed"), std::string::npos) << console.out;
  EXPECT_EQ(console.out.find("saturated"), std::string::npos) << console.out;
}

TEST(Serve, ReplicasShareTheRequestsAndTheBreakdownSaysHow) {
  sim_process a({"--decode-base-ms", "1"}), b({"--decode-base-ms", "1"});
  const auto run = serve_json({"--base-url", a.url(), "--base-url", b.url(), "--num-prompts", "40", "--max-concurrency",
                               "8", "--random-input-len", "16", "--random-output-len", "4"});
  const auto p = point_of(run);
  EXPECT_EQ(p.at("completed"), 40);
  EXPECT_EQ(p.at("endpoints").at(a.url()).at("requests"), 20);
  EXPECT_EQ(p.at("endpoints").at(b.url()).at("requests"), 20);
  const auto least =
      point_of(serve_json({"--base-url", a.url(), "--base-url", b.url(), "--num-prompts", "40", "--balance",
                           "least-outstanding", "--random-input-len", "16", "--random-output-len", "4"}));
  EXPECT_EQ(least.at("completed"), 40);
}

TEST(Serve, TheApiKeyNeverReachesAnOutputFile) {
  sim_process sim({"--decode-base-ms", "1"});
  const auto dir = make_temp_dir("ironbench_serve_key_");
  const std::string secret = "sk-ironbench-test-9f8e7d6c5b4a";
  setenv("IRONBENCH_TEST_API_KEY", secret.c_str(), 1);
  const auto r = run_ironbench({"serve",
                                "--base-url",
                                sim.url(),
                                "--num-prompts",
                                "4",
                                "--random-input-len",
                                "8",
                                "--random-output-len",
                                "3",
                                "--api-key-env",
                                "IRONBENCH_TEST_API_KEY",
                                "--save-result",
                                "--save-detailed",
                                "--result-dir",
                                dir,
                                "--results-dir",
                                dir + "/runs",
                                "--json",
                                dir + "/run.json",
                                "--csv",
                                dir + "/run.csv",
                                "--md",
                                dir + "/run.md"});
  unsetenv("IRONBENCH_TEST_API_KEY");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(read_file(entry.path().string()).find(secret), std::string::npos) << entry.path();
  }
  EXPECT_GE(files, 6u);  // vLLM JSON, requests JSONL, saved run, --json, --csv, --md
  EXPECT_EQ((r.out + r.err).find(secret), std::string::npos);
}

// Timed: which point is under the ITL limit depends on the ITLs measured.
TEST(ServeTimed, SweepsConcurrencyAndReportsTheBestPointUnderAnItlLimit) {
  sim_process sim({"--decode-base-ms", "4", "--decode-per-seq-ms", "1"});
  const auto r = run_ironbench({"serve", "--base-url", sim.url(), "--max-concurrency", "1,4,16",
                                "--num-prompts-per-concurrency", "4", "--random-input-len", "8", "--random-output-len",
                                "8", "--max-itl-ms", "12", "--no-save", "--json", "-", "--max-lateness-ms", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  ASSERT_EQ(run.at("cases").size(), 3u);
  EXPECT_EQ(point_of(run, 2).at("num_prompts"), 64);
  // ITL = 4 + 1 x batch ms: 5 and 8 ms fit under 12 ms, 16 sequences (20 ms) do not (margins
  // wide enough for a loaded machine's later steps).
  expect_time_not_above("median ITL of 4 sequences under the 12 ms limit",
                        point_of(run, 1).at("median_itl_ms").get<double>(), 8, 4);
  expect_time_not_below("median ITL of 16 sequences over the 12 ms limit",
                        point_of(run, 2).at("median_itl_ms").get<double>(), 20, 8);
  EXPECT_EQ(run.at("settings").at("best_under_itl_limit"), 1);
}

// Interrupted once the client has said it finished more than five requests (its progress lines):
// no fixed delay, which a slow start on a loaded machine would use up.
TEST(Serve, CtrlCWritesWhatWasMeasured) {
  sim_process sim({"--decode-base-ms", "5"});
  const auto dir = make_temp_dir("ironbench_serve_int_");
  auto p = start_ironbench({"serve", "--base-url", sim.url(), "--num-prompts", "1000", "--request-rate", "20",
                            "--random-input-len", "8", "--random-output-len", "4", "--results-dir", dir, "--json",
                            dir + "/run.json", "--progress-interval", "0.1s"});
  EXPECT_TRUE(wait_for_output(p, [](const std::string& err) { return requests_done_in(err) > 5; }))
      << read_file(p.err_path);
  kill(p.pid, SIGINT);
  const auto r = wait_for(p);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  const auto run = json::parse(read_file(dir + "/run.json"));
  EXPECT_EQ(run.at("status"), "interrupted");
  const auto point = point_of(run);
  EXPECT_GT(point.at("completed").get<int>(), 5);
  EXPECT_LT(point.at("completed").get<int>(), 1000);
  EXPECT_EQ(point.at("client").at("interrupted"), true);
}

TEST(Serve, SimulatorRequestLogShowsEveryArrivalAndTheClientsConcurrencyLimit) {
  const auto dir = make_temp_dir("ironbench_sim_log_");
  const auto log = dir + "/requests.jsonl";
  {
    sim_process sim({"--request-log", log, "--decode-base-ms", "2"});
    ASSERT_GT(sim.port(), 0);
    const auto p = point_of(serve_json({"--base-url", sim.url(), "--num-prompts", "12", "--max-concurrency", "3",
                                        "--random-input-len", "8", "--random-output-len", "5"}));
    EXPECT_EQ(p.at("completed"), 12);
  }  // serve-sim stops on SIGINT and closes its log
  std::vector<std::int64_t> arrivals, ends;
  std::istringstream lines(read_file(log));
  for (std::string line; std::getline(lines, line);) {
    const auto r = json::parse(line);
    EXPECT_EQ(r.at("outcome"), "done");
    EXPECT_EQ(r.at("max_tokens"), 5);
    EXPECT_EQ(r.at("prompt_tokens"), 8);
    EXPECT_LE(r.at("arrived_ns").get<std::int64_t>(), r.at("first_token_ns").get<std::int64_t>());
    EXPECT_LE(r.at("first_token_ns").get<std::int64_t>(), r.at("ended_ns").get<std::int64_t>());
    arrivals.push_back(r.at("arrived_ns"));
    ends.push_back(r.at("ended_ns"));
  }
  ASSERT_EQ(arrivals.size(), 12u);
  std::sort(arrivals.begin(), arrivals.end());
  std::sort(ends.begin(), ends.end());
  // Seen from the server: never more than 3 requests at once, so the (3 + k)-th arrival
  // comes after the k-th end.
  for (std::size_t k = 0; k + 3 < arrivals.size(); ++k) EXPECT_GE(arrivals[k + 3], ends[k]) << k;
  const auto unwritable =
      run_ironbench({"serve-sim", "--port", "0", "--request-log", "/nonexistent/dir/requests.jsonl"});
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_EQ(lines_of(unwritable.err).size(), 1u) << unwritable.err;
}

// serve-sim behind a TLS front (tests/integration/tls_proxy.py) with a certificate made here.
TEST(Serve, HttpsEndpointsAreVerifiedWithTheGivenCaOrNotAtAll) {
  const auto dir = make_temp_dir("ironbench_tls_");
  const auto cert = dir + "/cert.pem", key = dir + "/key.pem";
  const auto made = wait_for(
      start_program("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days",
                                "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"}));
  if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a test certificate: " << made.err;
  sim_process sim({"--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto proxy = start_program(
      "python3", {IRONBENCH_SOURCE_DIR "/tests/integration/tls_proxy.py", cert, key, std::to_string(sim.port())});
  const int port = announced_port(proxy, std::regex(R"(port (\d+))"));
  if (port == 0) {
    kill(proxy.pid, SIGTERM);
    (void)wait_for(proxy);
    GTEST_SKIP() << "python3 could not start the TLS front: " << read_file(proxy.err_path);
  }
  const auto url = "https://127.0.0.1:" + std::to_string(port);
  const std::vector<std::string> load = {"--base-url",          url, "--num-prompts",      "6",
                                         "--max-concurrency",   "2", "--random-input-len", "8",
                                         "--random-output-len", "5"};
  auto with = [&](std::vector<std::string> extra, int* code = nullptr) {
    extra.insert(extra.begin(), load.begin(), load.end());
    return point_of(serve_json(extra, code));
  };
  const auto verified = with({"--ca-cert", cert});
  EXPECT_EQ(verified.at("completed"), 6) << verified.dump();
  EXPECT_EQ(verified.at("total_output_tokens"), 30);
  int code = 0;
  const auto refused = with({}, &code);  // the system's CAs do not know the certificate
  EXPECT_NE(code, 0);
  EXPECT_EQ(refused.at("completed"), 0);
  EXPECT_EQ(refused.at("errors_by_class").value("tls", 0), 6) << refused.at("errors_by_class").dump();
  const auto unverified = with({"--insecure"});
  EXPECT_EQ(unverified.at("completed"), 6);
  kill(proxy.pid, SIGTERM);
  (void)wait_for(proxy);
}

TEST(Serve, BadInputIsAOneLineUsageError) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"serve", "--base-url", "ftp://x"},
           {"serve", "--request-rate", "0"},
           {"serve", "--max-concurrency", "2.5"},
           {"serve", "--goodput", "ttft"},
           {"serve", "--percentile-metrics", "latency"},
           {"serve", "--dataset-name", "custom"},
           {"serve", "--dataset-name", "custom", "--dataset-path", "/nonexistent.jsonl"},
           {"serve", "--extra-body", "[1]"},
           {"serve", "--header", "no-colon"},
           {"serve", "--receive-time", "soon"},
           {"serve", "--ca-cert", "/nonexistent.pem"},
           {"serve-sim", "--fault", "explode", "--fault-every", "2"}}) {
    const auto r = run_ironbench(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  }
}

}  // namespace
}  // namespace ironbench::testing
