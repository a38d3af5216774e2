// The simulated engine in virtual time: exact step times, batching, queueing and cancelling.
#include "serve/sim/sim_engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>

#include <map>

#include "core/error.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/point/serve_report.hpp"
#include "serve/sim/sim_prefix_cache.hpp"
#include "serve/sim/sim_server.hpp"
#include "serve/workload/datasets.hpp"
#include "temp_dir.hpp"

namespace ironbench::serve {
namespace {

sim_settings exact() {
  sim_settings s;
  s.prefill_tokens_per_s = 1000;
  s.decode_base_ms = 10;
  s.decode_per_seq_ms = 1;
  s.max_num_seqs = 2;
  s.kv_cache_tokens = 1000;
  return s;
}

// Runs the engine to completion; returns each request's token emission times.
std::map<std::uint64_t, std::vector<double>> run(sim_engine& engine) {
  std::map<std::uint64_t, std::vector<double>> times;
  double t = 0;
  while (auto step = engine.next_step()) {
    t += step->duration_s;
    for (const auto& e : step->emissions) times[e.id].push_back(t);
  }
  return times;
}

TEST(SimEngine, LoneRequestHasExactTtftAndItl) {
  sim_engine engine(exact());
  ASSERT_TRUE(engine.submit({1, 100, 4}));
  const auto times = run(engine);
  ASSERT_EQ(times.at(1).size(), 4u);
  EXPECT_NEAR(times.at(1)[0], 0.100 + 0.011, 1e-12);  // prefill 100 / 1000 s + one decode step
  for (int i = 1; i < 4; ++i) EXPECT_NEAR(times.at(1)[i] - times.at(1)[i - 1], 0.011, 1e-12);
  EXPECT_EQ(engine.kv_tokens_used(), 0);
}

TEST(SimEngine, SequenceSlotsAndKvCacheMakeRequestsQueue) {
  sim_engine engine(exact());
  for (std::uint64_t id = 1; id <= 3; ++id) ASSERT_TRUE(engine.submit({id, 10, 2}));
  auto first = engine.next_step();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->admitted, 2u);  // max_num_seqs = 2
  EXPECT_EQ(engine.waiting(), 1u);
  EXPECT_NEAR(first->duration_s, 0.020 + 0.010 + 0.002, 1e-12);
  (void)engine.next_step();  // both finish their 2 tokens
  auto third = engine.next_step();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->admitted, 1u);

  sim_engine small(exact());
  ASSERT_TRUE(small.submit({1, 500, 300}));
  ASSERT_TRUE(small.submit({2, 300, 100}));  // 800 + 400 > 1000: waits for the first
  EXPECT_EQ(small.next_step()->admitted, 1u);
  EXPECT_EQ(small.waiting(), 1u);
  EXPECT_FALSE(small.submit({3, 900, 200}));  // can never fit
  small.cancel(1);
  EXPECT_EQ(small.kv_tokens_used(), 0);
  EXPECT_EQ(small.next_step()->admitted, 1u);
}

TEST(SimEngine, StepTimeGrowsWithTheBatchSoThroughputSaturates) {
  auto s = exact();
  s.max_num_seqs = 1000;
  s.kv_cache_tokens = 1 << 30;
  sim_engine engine(s);
  for (std::uint64_t id = 1; id <= 100; ++id) ASSERT_TRUE(engine.submit({id, 0, 1}));
  const auto step = engine.next_step();
  EXPECT_NEAR(step->duration_s, 0.010 + 0.100, 1e-12);
  EXPECT_EQ(step->emissions.size(), 100u);
}

TEST(SimEngine, CachedPromptTokensAreNotPrefilled) {
  sim_engine engine(exact());
  ASSERT_TRUE(engine.submit({1, 100, 1, -1, 96}));
  const auto step = engine.next_step();
  ASSERT_TRUE(step);
  EXPECT_NEAR(step->duration_s, 0.004 + 0.011, 1e-12);  // 4 of 100 tokens prefilled
  sim_engine cold(exact());
  ASSERT_TRUE(cold.submit({1, 100, 1}));
  EXPECT_NEAR(cold.next_step()->duration_s, 0.100 + 0.011, 1e-12);
}

std::vector<std::uint64_t> consecutive_ids(std::uint64_t first, std::size_t count) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

TEST(SimPrefixCache, LeadingWholeBlocksSeenWithinTheWindowAreCached) {
  sim_prefix_cache cache({10, 4, 1000});
  EXPECT_EQ(cache.lookup_and_insert(consecutive_ids(0, 10), 0, 0), 0);  // first sight
  // The same 10 tokens: 2 whole blocks of 4 (the last 2 tokens are no whole block).
  EXPECT_EQ(cache.lookup_and_insert(consecutive_ids(0, 10), 0, 1), 8);
  // The same prompt exactly 8 tokens long: every token cached but the last, always prefilled.
  EXPECT_EQ(cache.lookup_and_insert(consecutive_ids(0, 8), 0, 2), 7);
  // A shared first block, then a different one: only the first.
  auto branch = consecutive_ids(0, 8);
  branch[5] = 99;
  EXPECT_EQ(cache.lookup_and_insert(branch, 0, 3), 4);
  // The same tokens behind another prefix match nothing (a block is known by what precedes it).
  auto shifted = consecutive_ids(0, 8);
  shifted[0] = 77;
  EXPECT_EQ(cache.lookup_and_insert(shifted, 0, 4), 0);
  // Another model (salt) shares nothing.
  EXPECT_EQ(cache.lookup_and_insert(consecutive_ids(0, 10), 1, 5), 0);
  // Past the window (last seen at 3 s for the first block, 2 s for the second): forgotten.
  EXPECT_EQ(cache.lookup_and_insert(consecutive_ids(0, 10), 0, 13.5), 0);
  EXPECT_EQ(cache.lookup_and_insert(consecutive_ids(0, 10), 0, 14), 8);  // seen again at 13.5 s
}

TEST(SimPrefixCache, NoWindowIsNoCacheAndMemoryIsBounded) {
  sim_prefix_cache off({0, 4, 1000});
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(off.lookup_and_insert(consecutive_ids(0, 8), 0, 0), 0);
  EXPECT_EQ(off.lookup_and_insert(consecutive_ids(0, 8), 0, 1), 0);
  sim_prefix_cache small({1000, 4, 3});
  for (std::uint64_t p = 0; p < 10; ++p) (void)small.lookup_and_insert(consecutive_ids(p * 100, 8), 0, 0);
  EXPECT_LE(small.blocks(), 3U);
  EXPECT_EQ(small.lookup_and_insert(consecutive_ids(0, 8), 0, 1), 0);  // the oldest forgotten first
}

TEST(SimPrefixCache, PromptTokensAreTheWordsOrIdsSimCounts) {
  const auto words = sim_prompt_token_ids(json::parse(R"({"prompt":"a b  a"})"));
  ASSERT_EQ(words.size(), 3U);
  EXPECT_EQ(words[0], words[2]);
  EXPECT_NE(words[0], words[1]);
  EXPECT_EQ(sim_prompt_token_ids(json::parse(R"({"prompt":[1,2,3,4,5]})")).size(), 5U);
  const auto chat =
      json::parse(R"({"messages":[{"role":"user","content":"one two"},{"role":"user","content":"three"}]})");
  EXPECT_EQ(static_cast<std::int64_t>(sim_prompt_token_ids(chat).size()), sim_prompt_tokens(chat.dump()));
  EXPECT_TRUE(sim_prompt_token_ids(json::parse("[1]")).empty());
}

TEST(SimServer, PromptTokenCounting) {
  EXPECT_EQ(sim_prompt_tokens(R"({"prompt":[1,2,3,4,5]})"), 5);
  EXPECT_EQ(sim_prompt_tokens(R"({"prompt":"a b  c"})"), 3);
  EXPECT_EQ(
      sim_prompt_tokens(R"({"messages":[{"role":"user","content":"one two"},{"role":"user","content":"three"}]})"), 3);
  EXPECT_EQ(sim_prompt_tokens("not json"), 0);
  EXPECT_EQ(sim_fault_from_string("truncate"), sim_fault::truncate);
  EXPECT_THROW((void)sim_fault_from_string("explode"), std::exception);
}

TEST(Datasets, RandomPromptsHaveExactLengthsAndASharedPrefix) {
  body_settings body;
  body.model = "m";
  random_dataset d;
  d.input_len = 50;
  d.output_len = 20;
  d.prefix_len = 5;
  const auto requests = make_random_requests(d, body, 10, 3);
  ASSERT_EQ(requests.size(), 10u);
  json first_prefix;
  for (const auto& r : requests) {
    const auto j = json::parse(r.body);
    EXPECT_EQ(j.at("prompt").size(), 55u);
    EXPECT_EQ(r.prompt_len, 55);
    EXPECT_EQ(j.at("max_tokens"), 20);
    EXPECT_EQ(j.at("stream"), true);
    EXPECT_EQ(j.at("stream_options").at("include_usage"), true);
    const json prefix(j.at("prompt").begin(), j.at("prompt").begin() + 5);
    if (first_prefix.is_null()) first_prefix = prefix;
    EXPECT_EQ(prefix, first_prefix);
  }
  d.vocab_size = 300;  // a small tokenizer's vocabulary: every id stays inside it
  for (const auto& r : make_random_requests(d, body, 20, 5)) {
    const auto parsed = json::parse(r.body);
    for (const auto& id : parsed.at("prompt")) {
      EXPECT_GE(id.get<std::int64_t>(), 100);
      EXPECT_LT(id.get<std::int64_t>(), 300);
    }
  }
  d.vocab_size = 32000;
  d.range_ratio = 0.5;
  d.prefix_len = 0;
  for (const auto& r : make_random_requests(d, body, 200, 4)) {
    EXPECT_GE(r.prompt_len, 25);
    EXPECT_LE(r.prompt_len, 75);
    EXPECT_GE(r.max_tokens, 10);
    EXPECT_LE(r.max_tokens, 30);
  }
  body.api = openai_api::chat;
  body.ignore_eos = true;
  body.extra = {{"temperature", 0}};
  const auto chat = json::parse(make_random_requests(d, body, 1, 5)[0].body);
  EXPECT_TRUE(chat.contains("messages"));
  EXPECT_TRUE(chat.contains("max_completion_tokens"));
  EXPECT_EQ(chat.at("ignore_eos"), true);
  EXPECT_EQ(chat.at("temperature"), 0);
  d.range_ratio = 1.0;
  EXPECT_THROW((void)make_random_requests(d, body, 1, 1), std::exception);
  d.range_ratio = std::numeric_limits<double>::quiet_NaN();  // --random-range-ratio nan
  EXPECT_THROW((void)make_random_requests(d, body, 1, 1), usage_error);
}

TEST(ServeReport, BestPointUnderTheLimitAndErrorClasses) {
  std::vector<json> points = {{{"output_throughput", 100.0}, {"median_itl_ms", 10.0}},
                              {{"output_throughput", 300.0}, {"median_itl_ms", 25.0}},
                              {{"output_throughput", 500.0}, {"median_itl_ms", 45.0}}};
  EXPECT_EQ(best_point_under_limit(points, "itl", "median", 30), 1);
  EXPECT_EQ(best_point_under_limit(points, "itl", "median", 5), -1);
  EXPECT_EQ(best_point_under_limit(points, "itl", "p99", 30), -1);
  EXPECT_EQ(http_error_class(429), "http_429");
  EXPECT_EQ(http_error_class(404), "http_4xx");
  EXPECT_EQ(http_error_class(503), "http_5xx");
  request_record r;
  r.success = false;
  r.error_class = "truncated";
  const auto lines = request_records_jsonl({r, r});
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2);
  EXPECT_NE(lines.find("\"error_class\":\"truncated\""), std::string::npos);
}

}  // namespace
}  // namespace ironbench::serve

#include <filesystem>
#include <fstream>

namespace ironbench::serve {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  static const testing::temp_dir dir("ironbench_datasets_");
  return dir.write(name, text).string();
}

TEST(Datasets, ShareGptKeepsVllmsLengthWindowAndCustomReadsJsonl) {
  std::string words_1100;
  for (int i = 0; i < 1100; ++i) words_1100 += " w";
  const json conversations = json::array(
      {{{"conversations", json::array({{{"from", "human"}, {"value", "one two three four five"}},
                                       {{"from", "gpt"}, {"value", "a b c d e f"}}})}},
       {{"conversations",
         json::array({{{"from", "human"}, {"value", "too short"}}, {{"from", "gpt"}, {"value", "a b c d e f"}}})}},
       {{"conversations",
         json::array({{{"from", "human"}, {"value", words_1100}}, {{"from", "gpt"}, {"value", "a b c d"}}})}},
       {{"conversations", json::array({{{"from", "human"}, {"value", "only one turn here ok"}}})}},
       {{"id", "no conversations"}}});
  body_settings body;
  body.model = "m";
  const auto path = temp_file("sharegpt.json", conversations.dump());
  const auto requests = make_sharegpt_requests(path, 0, body, 3, 1, nullptr);
  ASSERT_EQ(requests.size(), 3u);  // one usable pair, reused
  for (const auto& r : requests) {
    EXPECT_EQ(r.prompt_len, 5);
    EXPECT_EQ(r.max_tokens, 6);
  }
  EXPECT_EQ(make_sharegpt_requests(path, 32, body, 1, 1, nullptr)[0].max_tokens, 32);
  EXPECT_THROW((void)make_sharegpt_requests(temp_file("empty.json", "[]"), 0, body, 1, 1, nullptr), std::exception);
  EXPECT_THROW((void)make_sharegpt_requests(temp_file("object.json", "{}"), 0, body, 1, 1, nullptr), std::exception);

  const auto custom = make_custom_requests(
      temp_file("custom.jsonl", "{\"prompt\": \"a b c\"}\n\n{\"prompt\": \"d e\", \"output_tokens\": 9}\n"), 7, body,
      4);
  ASSERT_EQ(custom.size(), 4u);
  EXPECT_EQ(custom[0].prompt_len, 3);
  EXPECT_EQ(custom[0].max_tokens, 7);
  EXPECT_EQ(custom[1].max_tokens, 9);
  EXPECT_EQ(custom[2].prompt_len, 3);  // reused in order
  EXPECT_THROW((void)make_custom_requests(temp_file("bad.jsonl", "{\"text\": 1}\n"), 7, body, 1), std::exception);
}

}  // namespace
}  // namespace ironbench::serve

namespace ironbench::serve {
namespace {

TEST(Datasets, PrefixRepetitionCyclesThroughItsPrefixes) {
  body_settings body;
  body.model = "m";
  prefix_repetition_dataset d;
  d.prefix_len = 6;
  d.suffix_len = 4;
  d.num_prefixes = 3;
  d.output_len = 5;
  const auto requests = make_prefix_repetition_requests(d, body, 7, 2);
  ASSERT_EQ(requests.size(), 7u);
  std::vector<json> prefixes;
  for (const auto& r : requests) {
    const auto prompt = json::parse(r.body).at("prompt");
    ASSERT_EQ(prompt.size(), 10u);
    EXPECT_EQ(r.prompt_len, 10);
    EXPECT_EQ(r.max_tokens, 5);
    prefixes.emplace_back(prompt.begin(), prompt.begin() + 6);
  }
  EXPECT_EQ(prefixes[0], prefixes[3]);
  EXPECT_EQ(prefixes[1], prefixes[4]);
  EXPECT_NE(prefixes[0], prefixes[1]);
  EXPECT_NE(json::parse(requests[0].body).at("prompt")[7], json::parse(requests[3].body).at("prompt")[7]);
  d.num_prefixes = 0;
  EXPECT_THROW((void)make_prefix_repetition_requests(d, body, 1, 1), std::exception);
}

// Ctrl-C while a large point's requests are built: the synthetic datasets stop at the next
// 64 requests (never before the first 64) and return those, the same as an unstopped build's
// first ones; a flag that stays clear builds them all.
TEST(Datasets, SyntheticDatasetsStopBuildingWhenAsked) {
  body_settings body;
  body.model = "m";
  random_dataset random;
  random.input_len = 8;
  prefix_repetition_dataset repeated;
  repeated.prefix_len = 4;
  repeated.suffix_len = 4;
  repeated.num_prefixes = 2;
  std::atomic<bool> stop{false};
  EXPECT_EQ(make_random_requests(random, body, 1000, 7, &stop).size(), 1000u);
  EXPECT_EQ(make_prefix_repetition_requests(repeated, body, 1000, 7, &stop).size(), 1000u);
  stop = true;
  const auto all = make_random_requests(random, body, 1000, 7);
  const auto stopped = make_random_requests(random, body, 1000, 7, &stop);
  ASSERT_EQ(stopped.size(), 64u);
  for (std::size_t i = 0; i < stopped.size(); ++i) EXPECT_EQ(stopped[i].body, all[i].body) << i;
  EXPECT_EQ(make_prefix_repetition_requests(repeated, body, 1000, 7, &stop).size(), 64u);
  EXPECT_EQ(make_random_requests(random, body, 10, 7, &stop).size(), 10u) << "fewer than 64: all of them";
}

}  // namespace
}  // namespace ironbench::serve
