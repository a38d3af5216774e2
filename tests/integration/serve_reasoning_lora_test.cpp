// ironbench serve against serve-sim's reasoning output and LoRA adapters: the first reasoning
// and first answer token times, the token split and every adapter's metrics, against the
// simulator's step model (exact with no jitter).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// The simulator's times are judged in the release build only: sanitizers slow the client and
// the server. serve-sim's first step starts when a lone request arrives and its timer never fires
// early, but its steps follow the planned timeline: after a late step the next ones catch up,
// so a token may come a little before the step model's time. The default run judges the times
// with tolerances from the worst of 20 runs beside two busy loops, with a margin (docs/testing.md,
// "Tests that judge time"); the step model's exact times, which a loaded machine blurs (a TPOT of
// 4 ms read up to 4 ms off), are the slow test's.
constexpr bool reasoning_timed = IRONBENCH_SANITIZED_BUILD == 0;
constexpr double ttft_floor_ms = 0.2;         // how much earlier than the step model the TTFT may read
constexpr double ttft_late_ms = 10.0;         // TTFT: the prefill and one step
constexpr double answer_floor_ms = 3.5;       // the first answer token, earlier (steps catching up)
constexpr double answer_ttft_late_ms = 35.0;  // the first answer token: seven steps

json reasoning_lora_point(const std::vector<std::string>& args, process_result* raw = nullptr) {
  std::vector<std::string> all = {"serve", "--no-save", "--json", "-", "--max-lateness-ms", "1000"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_ironbench(all);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  if (raw != nullptr) *raw = r;
  const auto run = json::parse(r.out);
  return json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
}

// A lone request at a time: 50 prompt words at 50,000 tokens/s (1 ms) + a 4 ms step give
// TTFT = 5 ms, then one token every 4 ms; the first answer token is the 7th (6 reasoning
// tokens), 24 ms after the first. Counts, the reasoning/answer split and the order are exact;
// the times are judged against the step model with the tolerances above, or, where
// `exact_times`, within 1 ms (TPOT: 0.5 ms).
void expect_reasoning_styles(bool exact_times) {
  struct style_case {
    std::string style, endpoint, reported_style;
    bool report;
  };
  const std::vector<style_case> cases = {{"reasoning_content", "/v1/chat/completions", "reasoning_content", false},
                                         {"reasoning", "/v1/chat/completions", "reasoning", false},
                                         {"think-tags", "/v1/chat/completions", "think_tags", false},
                                         {"reasoning_content", "/v1/completions", "think_tags", false},
                                         {"reasoning", "/v1/chat/completions", "reasoning", true}};
  for (const auto& c : cases) {
    std::vector<std::string> sim_args = {"--prefill-tokens-per-s", "50000", "--decode-base-ms",   "4",
                                         "--decode-per-seq-ms",    "0",     "--reasoning-tokens", "6",
                                         "--reasoning-style",      c.style};
    if (c.report) sim_args.emplace_back("--report-reasoning-tokens");
    sim_process sim(sim_args);
    ASSERT_GT(sim.port(), 0);
    const auto p = reasoning_lora_point({"--base-url", sim.url(), "--endpoint", c.endpoint, "--num-prompts", "6",
                                         "--max-concurrency", "1", "--random-input-len", "50", "--random-output-len",
                                         "10", "--num-warmups", "1", "--metric-percentiles", "1,99"});
    const auto what = c.style + " " + c.endpoint + (c.report ? " (reported)" : "");
    SCOPED_TRACE(what);
    ASSERT_EQ(p.at("completed"), 6) << what << p.dump(1);
    EXPECT_EQ(p.at("requests_with_reasoning"), 6) << what;
    EXPECT_EQ(p.at("total_output_tokens"), 60) << what;
    EXPECT_EQ(p.at("total_reasoning_tokens"), 36) << what;
    EXPECT_EQ(p.at("total_answer_tokens"), 24) << what;
    EXPECT_EQ(p.at("reasoning_styles").at(c.reported_style), 6) << what << p.at("reasoning_styles");
    EXPECT_EQ(p.at("reasoning_token_sources").at(c.report ? "usage" : "events"), 6) << what;
    EXPECT_EQ(p.at("tpot_itl_tokens"), "reasoning+answer");
    // TTFT keeps vLLM's definition: the first token of any kind, here the first reasoning token.
    EXPECT_NEAR(p.at("median_ttft_reasoning_ms").get<double>(), p.at("median_ttft_ms").get<double>(), 1e-9) << what;
    // The order: the first answer token comes after the reasoning tokens (in every request, so
    // in the medians too).
    EXPECT_GT(p.at("median_ttft_answer_ms").get<double>(), p.at("median_ttft_reasoning_ms").get<double>()) << what;
    if (!reasoning_timed) continue;
    const double ttft = p.at("median_ttft_ms").get<double>(), answer = p.at("median_ttft_answer_ms").get<double>();
    if (exact_times) {
      EXPECT_NEAR(ttft, 5, 1.0);
      EXPECT_NEAR(answer, 29, 1.0);
      EXPECT_GT(p.at("p1_ttft_answer_ms").get<double>(), 29 - 1.0);  // the earliest answer too
      EXPECT_NEAR(p.at("median_answer_tpot_ms").get<double>(), 4, 0.5);
      EXPECT_NEAR(p.at("median_tpot_ms").get<double>(), 4, 0.5);  // over all 10 tokens
      continue;
    }
    expect_time_not_below("median TTFT not before the step model", ttft, 5, ttft_floor_ms);
    expect_time_not_above("median TTFT late", ttft, 5, ttft_late_ms);
    // No answer comes much before the step model allows, the earliest included.
    expect_time_not_below("p1 answer TTFT not before the step model", p.at("p1_ttft_answer_ms").get<double>(), 29,
                          answer_floor_ms);
    expect_time_not_above("median answer TTFT late", answer, 29, answer_ttft_late_ms);
  }
}

TEST(ServeReasoningTimed, FirstReasoningAndAnswerTokensInEachStyle) { expect_reasoning_styles(false); }

// The step model's times within 1 ms: label "slow" (docs/testing.md, "Tests that judge time").
TEST(ServeReasoningSlow, TheStepModelsTimesInEachStyle) { expect_reasoning_styles(true); }

TEST(ServeReasoning, ANonReasoningServerAddsNoReasoningKeys) {
  sim_process sim({"--decode-base-ms", "1"});
  ASSERT_GT(sim.port(), 0);
  const auto p = reasoning_lora_point({"--base-url", sim.url(), "--endpoint", "/v1/chat/completions", "--num-prompts",
                                       "3", "--random-input-len", "8", "--random-output-len", "4"});
  EXPECT_EQ(p.at("completed"), 3);
  EXPECT_FALSE(p.contains("requests_with_reasoning"));
  EXPECT_FALSE(p.contains("tpot_itl_tokens"));
}

// Three adapters in turns, one request at a time: a step lasts 4 ms + the running adapter's
// cost, so each adapter's TPOT is 5, 6 and 8 ms, judged within 1 ms where `judge_tpot` (steps 1
// and 2 ms apart: a loaded machine's late steps, up to 4.5 ms in 20 runs beside two busy loops,
// blur them: docs/testing.md, "Tests that judge time"); serve-sim's request log names every
// request's model.
void expect_adapters_in_turns(bool judge_tpot) {
  const auto dir = make_temp_dir("ironbench_lora_");
  const auto log = dir + "/requests.jsonl";
  std::optional<sim_process> sim;
  sim.emplace(std::vector<std::string>{"--decode-base-ms", "4", "--decode-per-seq-ms", "0", "--lora-modules", "a,b,c",
                                       "--lora-step-cost-ms", "1,2,4", "--request-log", log});
  ASSERT_GT(sim->port(), 0);
  process_result raw;
  const auto p =
      reasoning_lora_point({"--base-url", sim->url(), "--lora-modules", "a,b,c", "--num-prompts", "9",
                            "--max-concurrency", "1", "--random-input-len", "16", "--random-output-len", "8"},
                           &raw);
  ASSERT_EQ(p.at("completed"), 9) << p.dump(1);
  const auto& per = p.at("per_adapter");
  const std::map<std::string, double> tpot = {{"a", 5}, {"b", 6}, {"c", 8}};
  for (const auto& [name, ms] : tpot) {
    EXPECT_EQ(per.at(name).at("requests"), 3) << name;
    EXPECT_EQ(per.at(name).at("completed"), 3) << name;
    EXPECT_EQ(per.at(name).at("total_output_tokens"), 24) << name;
    if (judge_tpot) {
      EXPECT_NEAR(per.at(name).at("median_tpot_ms").get<double>(), ms, 1.0) << name;
    }
  }
  EXPECT_NE((raw.out + raw.err).find("adapter c: 3 of 3 completed"), std::string::npos) << raw.out << raw.err;
  // The server's truth: request i went to adapter i % 3, in the order sent. (The log is
  // complete once the server has stopped: it flushes every 50 ms while it runs.)
  sim.reset();
  std::istringstream lines(read_file(log));
  std::vector<std::string> models;
  for (std::string line; std::getline(lines, line);) {
    const auto j = json::parse(line);
    if (j.at("outcome") == "done") models.push_back(j.at("model").get<std::string>());
  }
  EXPECT_EQ(models, (std::vector<std::string>{"a", "b", "c", "a", "b", "c", "a", "b", "c"}));
}

TEST(ServeLora, EachAdapterGetsItsTurns) { expect_adapters_in_turns(false); }

// The step costs, exactly: label "slow" (docs/testing.md, "Tests that judge time"), in the
// release build only (sanitizers slow the simulator).
TEST(ServeLoraSlow, EachAdapterGetsItsStepCost) { expect_adapters_in_turns(reasoning_timed); }

TEST(ServeLora, AnAdapterTheServerRefusesIsNamedWithItsError) {
  sim_process sim({"--decode-base-ms", "1", "--lora-modules", "a"});
  ASSERT_GT(sim.port(), 0);
  // Before anything is sent: the server's /v1/models does not list it.
  const auto refused = run_ironbench({"serve", "--base-url", sim.url(), "--lora-modules", "a,missing", "--no-save"});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("ironbench: error: the server at " + sim.url() +
                             " does not serve LoRA adapter missing (GET /v1/models lists: ironbench-sim, a)"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  // Sent anyway (an adapter loaded on demand is listed only once loaded): each refusal is named.
  process_result raw;
  const auto p = reasoning_lora_point(
      {"--base-url", sim.url(), "--lora-modules", "a,missing", "--no-adapter-check", "--num-prompts", "4",
       "--max-concurrency", "1", "--random-input-len", "8", "--random-output-len", "3"},
      &raw);
  const auto& missing = p.at("per_adapter").at("missing");
  EXPECT_EQ(missing.at("failed"), 2);
  EXPECT_EQ(missing.at("errors_by_class").at("http_4xx"), 2);
  EXPECT_NE(missing.at("first_error").get<std::string>().find("The model `missing` does not exist."), std::string::npos)
      << missing;
  EXPECT_EQ(p.at("per_adapter").at("a").at("completed"), 2);
  EXPECT_NE((raw.out + raw.err).find("adapter missing: 0 of 2 completed; first error http_4xx: HTTP 404"),
            std::string::npos)
      << raw.out << raw.err;
  // A bad list is a usage error before anything is sent.
  const auto bad = run_ironbench({"serve", "--base-url", sim.url(), "--lora-modules", "a,a", "--no-save"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--lora-modules names 'a' twice"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ironbench::testing
