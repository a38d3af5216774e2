// What a hostile server sends, judged before it reaches an output: invalid UTF-8 replaced,
// implausible usage flagged, impossible dataset sizes refused before anything is built.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/error.hpp"
#include "serve/client/openai_stream.hpp"
#include "serve/client/usage_plausibility.hpp"
#include "serve/client/utf8_repair.hpp"
#include "serve/workload/client_memory.hpp"
#include "usage_message.hpp"

namespace ironbench::serve {
namespace {

const std::string fffd = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

TEST(Utf8Repair, ValidTextIsUnchangedAndEveryInvalidSequenceBecomesOneReplacement) {
  for (const std::string valid :
       {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(is_valid_utf8(valid)) << valid;
    EXPECT_EQ(repaired_utf8(valid), valid);
  }
  EXPECT_FALSE(is_valid_utf8("a\xFF"));
  EXPECT_EQ(repaired_utf8("a\xFF"
                          "b"),
            "a" + fffd + "b");
  EXPECT_EQ(repaired_utf8("\xC0\xAF"), fffd + fffd) << "an overlong form: two bytes that start nothing";
  EXPECT_EQ(repaired_utf8("\xED\xA0\x80"), fffd + fffd + fffd) << "a surrogate";
  EXPECT_EQ(repaired_utf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd) << "above U+10FFFF";
  EXPECT_EQ(repaired_utf8("x\xE2\x82"), "x" + fffd) << "a sequence cut at the end: one replacement";
  EXPECT_EQ(repaired_utf8("\xE2\x82"
                          "a"),
            fffd + "a");
  EXPECT_EQ(repaired_utf8("\xF0\x9F\x98"), fffd);
  EXPECT_TRUE(is_valid_utf8(repaired_utf8("\x80\xBF\xFE\xFF\xC3")));
}

TEST(OpenAiChunk, ARawInvalidByteIsReplacedAndTheChunkStillCounts) {
  const auto c = parse_openai_chunk("{\"choices\":[{\"text\":\" caf\xFF\"}]}", openai_api::completions);
  EXPECT_FALSE(c.malformed);
  EXPECT_TRUE(c.has_choices);
  EXPECT_TRUE(c.invalid_utf8);
  EXPECT_EQ(c.text, " caf" + fffd);
  const auto clean = parse_openai_chunk(R"({"choices":[{"text":" ok"}]})", openai_api::completions);
  EXPECT_FALSE(clean.invalid_utf8);
  request_timing t(0);
  t.on_chunk(0.1, clean);
  EXPECT_FALSE(t.had_invalid_utf8());
  t.on_chunk(0.2, c);
  EXPECT_TRUE(t.had_invalid_utf8());
  EXPECT_EQ(t.text(), " ok caf" + fffd);
}

TEST(RequestTiming, TextNotAskedForIsCountedButNotKept) {
  request_timing t(0, false);
  t.on_chunk(0.1, parse_openai_chunk(R"({"choices":[{"text":"abcdef"}]})", openai_api::completions));
  t.on_chunk(0.2, parse_openai_chunk(R"({"choices":[{"text":"gh"}]})", openai_api::completions));
  EXPECT_EQ(t.text(), "");
  EXPECT_EQ(t.text_bytes(), 8u);
  EXPECT_EQ(t.text_events(), 2u);
}

TEST(UsagePlausibility, NegativeTooLargeOrBelowTheEventsSeenIsFlagged) {
  EXPECT_EQ(implausible_usage({std::nullopt, 6, 6}), "") << "no usage: nothing to judge";
  EXPECT_EQ(implausible_usage({6, 6, 6}), "");
  EXPECT_EQ(implausible_usage({0, 6, 0}), "") << "an answer of no token";
  EXPECT_EQ(implausible_usage({40, 128, 3}), "") << "several tokens per event (speculative decoding)";
  EXPECT_EQ(implausible_usage({-5, 6, 6}), "usage.completion_tokens -5 is negative");
  EXPECT_EQ(implausible_usage({1'000'000'000'000'000'000, 6, 6}),
            "usage.completion_tokens 1000000000000000000 is above max_tokens 6 (+16 allowed)");
  // The margin: max(16, 10 % of max_tokens) above what was asked for.
  EXPECT_EQ(usage_margin(6), 16);
  EXPECT_EQ(usage_margin(1000), 100);
  EXPECT_EQ(implausible_usage({22, 6, 6}), "");
  EXPECT_NE(implausible_usage({23, 6, 6}), "");
  EXPECT_EQ(implausible_usage({1100, 1000, 900}), "");
  EXPECT_NE(implausible_usage({1101, 1000, 900}), "");
  EXPECT_EQ(implausible_usage({1'000'000, 0, 3}), "") << "max_tokens unknown: no upper bound";
  EXPECT_EQ(implausible_usage({2, 6, 3}),
            "usage.completion_tokens 2 is less than the 3 token events with text received");
}

sweep_settings hostile_random_settings(std::int64_t input_len, std::int64_t prompts) {
  sweep_settings s;
  s.load.base_urls = {"http://127.0.0.1:8000"};
  s.datasets.random.input_len = input_len;
  s.num_prompts = prompts;
  return s;
}

TEST(ClientMemory, TheEstimateGrowsWithPromptsAndLengthsAndSaturates) {
  const auto small = estimated_client_bytes(hostile_random_settings(1024, 1000));
  EXPECT_GT(small, 1000u * 1024 * 8) << "at least the prompts' JSON";
  EXPECT_LT(small, 100u << 20) << "vLLM's default random run is small";
  EXPECT_GT(estimated_client_bytes(hostile_random_settings(200'000'000, 1000)), std::uint64_t{1} << 40) << "terabytes";
  EXPECT_EQ(estimated_client_bytes(hostile_random_settings(std::numeric_limits<std::int64_t>::max(), 1000)),
            std::numeric_limits<std::uint64_t>::max());
  auto file = hostile_random_settings(1024, 1000);
  file.dataset_name = "custom";
  EXPECT_EQ(estimated_client_bytes(file), 0u) << "a file's prompts are bounded by the file";
  auto outputs = hostile_random_settings(16, 10);
  outputs.datasets.random.output_len = 1'000'000'000;
  EXPECT_GT(estimated_client_bytes(outputs), 10 * std::uint64_t{1'000'000'000} * 8);
  auto detailed = outputs;
  detailed.save.save_detailed = true;
  EXPECT_GT(estimated_client_bytes(detailed), estimated_client_bytes(outputs));
  auto per_concurrency = hostile_random_settings(1000, 1);
  per_concurrency.num_prompts_per_concurrency = 10;
  per_concurrency.concurrencies = {1, 64};
  EXPECT_GT(estimated_client_bytes(per_concurrency), 640u * 1000 * 8) << "the largest point counts";
}

TEST(ClientMemory, SizesThatCannotFitAreRefusedWithTheEstimate) {
  const available_memory eight_gib{std::uint64_t{8} << 30, "MemAvailable"};
  EXPECT_EQ(testing::usage_message([&] { check_client_memory(hostile_random_settings(1024, 1000), eight_gib); }),
            "no usage_error");
  const auto message =
      testing::usage_message([&] { check_client_memory(hostile_random_settings(200'000'000, 1000), eight_gib); });
  EXPECT_NE(message.find("need about"), std::string::npos) << message;
  EXPECT_NE(message.find("1000 requests, prompts of up to 200000000 tokens"), std::string::npos) << message;
  EXPECT_NE(message.find("MemAvailable is 8 GiB"), std::string::npos) << message;
  const auto unknown = available_memory{};
  EXPECT_EQ(testing::usage_message([&] { check_client_memory(hostile_random_settings(200'000'000, 1000), unknown); }),
            "no usage_error")
      << "unknown memory: not judged";
  const auto uncountable = testing::usage_message(
      [&] { check_client_memory(hostile_random_settings(std::numeric_limits<std::int64_t>::max(), 2), eight_gib); });
  EXPECT_NE(uncountable.find("more bytes than 64 bits can count"), std::string::npos) << uncountable;
}

}  // namespace
}  // namespace ironbench::serve
