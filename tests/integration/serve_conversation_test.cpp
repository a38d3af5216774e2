// ironbench serve sending multi-turn conversations to serve-sim (real processes on loopback),
// with serve-sim's request log as the server's record of what arrived when.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

std::vector<json> lines_of_json(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

json run_serve(const std::string& url, const std::vector<std::string>& extra, int expected_exit = 0) {
  std::vector<std::string> args = {"serve",
                                   "--no-save",
                                   "--json",
                                   "-",
                                   "--base-url",
                                   url,
                                   "--dataset-name",
                                   "conversation",
                                   "--progress-interval",
                                   "0",
                                   "--max-lateness-ms",
                                   "1000",
                                   "--endpoint",
                                   "/v1/chat/completions"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_ironbench(args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return json::parse(r.out);
}

// One conversation of three turns: each turn leaves the think time after the answer before it,
// and carries the history: the server counts 10 words, then 10 + 6 + 10, then 10 + 6 + 10 + 6 + 10.
TEST(ServeConversationTimed, EachTurnFollowsTheAnswerAfterTheThinkTimeWithTheHistory) {
  temp_dir dir;
  const auto log = (dir.path() / "requests.jsonl").string();
  {
    // Answers of 6 tokens at 10 ms a step take about 60 ms: a think time started at the send
    // instead of at the answer would leave 40 ms after it, well below the bound checked.
    sim_process sim({"--decode-base-ms", "10", "--request-log", log});
    ASSERT_GT(sim.port(), 0);
    const auto run = run_serve(sim.url(), {"--num-prompts", "1", "--conversation-turns", "3", "--conversation-user-len",
                                           "10", "--conversation-output-len", "6", "--think-time", "0.1"});
    const auto point = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
    ASSERT_EQ(point.at("turns").size(), 3U);
    EXPECT_EQ(point.at("turns").at(2).at("turn"), 3);
    EXPECT_EQ(point.at("turns").at(2).at("mean_prompt_len"), 42.0);
    EXPECT_EQ(point.at("completed"), 3);
  }
  auto rows = lines_of_json(log);
  ASSERT_EQ(rows.size(), 3U);
  std::sort(rows.begin(), rows.end(),
            [](const json& a, const json& b) { return a.at("arrived_ns") < b.at("arrived_ns"); });
  EXPECT_EQ(rows[0].at("prompt_tokens"), 10);
  EXPECT_EQ(rows[1].at("prompt_tokens"), 26);
  EXPECT_EQ(rows[2].at("prompt_tokens"), 42);
  // The server stamps a request's end after its last write, which the client can read some
  // milliseconds earlier on a loaded machine (or under a sanitizer): the tolerances come from a
  // loaded machine. From one arrival to the next there are the answer (60 ms) and the whole
  // think time (100 ms).
  for (std::size_t k = 1; k < 3; ++k) {
    const double pause_ms = (rows[k].at("arrived_ns").get<double>() - rows[k - 1].at("ended_ns").get<double>()) * 1e-6;
    const double turn_ms = (rows[k].at("arrived_ns").get<double>() - rows[k - 1].at("arrived_ns").get<double>()) * 1e-6;
    SCOPED_TRACE("turn " + std::to_string(k + 1));
    expect_time_not_below("pause from an answer to the next turn, short", pause_ms, 100, 10);
    expect_time_not_above("pause from an answer to the next turn, long", pause_ms, 100, 50);
    expect_time_not_below("from one arrival to the next", turn_ms, 100 + 60, 10);
  }
}

// Every fourth request fails: the conversations it belongs to end there, and every turn is
// accounted for as completed, failed or not sent.
TEST(ServeConversation, AFailedTurnEndsItsConversationAndEveryTurnIsAccounted) {
  sim_process sim({"--decode-base-ms", "2", "--fault", "http-500", "--fault-every", "4"});
  ASSERT_GT(sim.port(), 0);
  const auto run = run_serve(sim.url(), {"--num-prompts", "6", "--conversation-turns", "4", "--conversation-user-len",
                                         "5", "--conversation-output-len", "4", "--request-rate", "50"});
  const auto point = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
  const int completed = point.at("completed"), failed = point.at("failed");
  const int dropped = point.at("conversation_turns_not_sent");
  EXPECT_GT(failed, 0);
  EXPECT_GT(dropped, 0);
  EXPECT_EQ(completed + failed + dropped, 6 * 4);
}

// --save-detailed's budget for kept texts bounds the result file's texts only: with room for
// none, every turn's text is counted as not kept, and the next turns still send the answers
// before them (the server counts the same histories as above).
TEST(ServeConversation, AnswersTheNextTurnSendsAreKeptPastTheTextBudget) {
  temp_dir dir;
  const auto log = (dir.path() / "requests.jsonl").string();
  {
    sim_process sim({"--decode-base-ms", "2", "--request-log", log});
    ASSERT_GT(sim.port(), 0);
    const auto r = run_ironbench({"serve",
                                  "--no-save",
                                  "--base-url",
                                  sim.url(),
                                  "--dataset-name",
                                  "conversation",
                                  "--progress-interval",
                                  "0",
                                  "--max-lateness-ms",
                                  "1000",
                                  "--endpoint",
                                  "/v1/chat/completions",
                                  "--num-prompts",
                                  "1",
                                  "--conversation-turns",
                                  "3",
                                  "--conversation-user-len",
                                  "10",
                                  "--conversation-output-len",
                                  "6",
                                  "--save-result",
                                  "--save-detailed",
                                  "--max-kept-text-bytes",
                                  "1",
                                  "--result-dir",
                                  dir.path().string(),
                                  "--result-filename",
                                  "point.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(dir.path() / "point.json");
    const auto file = json::parse(in);
    EXPECT_EQ(file.at("completed"), 3);
    EXPECT_EQ(file.at("generated_texts_not_kept"), 3);
    for (const auto& text : file.at("generated_texts")) EXPECT_EQ(text, "");
  }
  const auto rows = lines_of_json(log);
  ASSERT_EQ(rows.size(), 3U);
  std::vector<int> prompts;
  for (const auto& row : rows) prompts.push_back(row.at("prompt_tokens").get<int>());
  std::sort(prompts.begin(), prompts.end());
  EXPECT_EQ(prompts, (std::vector<int>{10, 26, 42}));
}

TEST(ServeConversation, MultiTurnNeedsShareGpt) {
  const auto r = run_ironbench({"serve", "--no-save", "--multi-turn"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--multi-turn takes --dataset-name sharegpt"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ironbench::testing
