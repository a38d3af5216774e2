#include "serve/client/openai_stream.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

TEST(OpenAiChunk, ChatCompletionsAndSpecialChunks) {
  auto c = parse_openai_chunk(R"({"choices":[{"delta":{"role":"assistant"}}]})", openai_api::chat);
  EXPECT_TRUE(c.has_choices);  // a role-only chunk is a token event for vLLM's TTFT
  EXPECT_EQ(c.text, "");
  c = parse_openai_chunk(R"({"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]})", openai_api::chat);
  EXPECT_EQ(c.text, "Hi");
  c = parse_openai_chunk(R"({"choices":[{"text":" world","finish_reason":"length"}]})", openai_api::completions);
  EXPECT_EQ(c.text, " world");
  EXPECT_EQ(c.finish_reason, "length");
  c = parse_openai_chunk(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34}})", openai_api::chat);
  EXPECT_FALSE(c.has_choices);
  EXPECT_EQ(c.completion_tokens, 34);
  EXPECT_EQ(c.prompt_tokens, 12);
  EXPECT_TRUE(parse_openai_chunk("[DONE]", openai_api::chat).done);
  EXPECT_TRUE(parse_openai_chunk("{not json", openai_api::chat).malformed);
  EXPECT_TRUE(parse_openai_chunk(R"({"choices": [ {"text": "cut)", openai_api::completions).malformed);
  EXPECT_TRUE(parse_openai_chunk(R"([1, 2])", openai_api::completions).malformed);
  EXPECT_TRUE(parse_openai_chunk("", openai_api::completions).malformed);
  EXPECT_EQ(parse_openai_chunk(R"({"choices":[{"text":"caf\u00e9 \"q\""}]})", openai_api::completions).text,
            "caf\xc3\xa9 \"q\"");
  EXPECT_TRUE(parse_openai_chunk(R"({"choices":{"a":1}})", openai_api::chat).malformed);
  EXPECT_TRUE(parse_openai_chunk(R"({"choices":[{"text":5}]})", openai_api::completions).malformed);
  EXPECT_EQ(parse_openai_chunk(R"({"error":{"message":"overloaded","code":503}})", openai_api::chat).error,
            "overloaded");
  // A non-streaming chat body carries "message" instead of "delta".
  c = parse_openai_chunk(R"({"choices":[{"message":{"content":"whole"}}],"usage":{"completion_tokens":1}})",
                         openai_api::chat);
  EXPECT_EQ(c.text, "whole");
}

TEST(RequestTiming, VllmRulesHandComputed) {
  request_timing t(10.0);
  t.on_chunk(10.25, parse_openai_chunk(R"({"choices":[{"delta":{"role":"assistant"}}]})", openai_api::chat));
  t.on_chunk(10.30, parse_openai_chunk(R"({"choices":[{"delta":{"content":"a"}}]})", openai_api::chat));
  t.on_chunk(10.30, parse_openai_chunk(R"({"choices":[{"delta":{"content":""}}]})", openai_api::chat));
  t.on_chunk(10.45, parse_openai_chunk(R"({"choices":[{"delta":{"content":"b"}}]})", openai_api::chat));
  t.on_chunk(10.50, parse_openai_chunk(R"({"choices":[],"usage":{"completion_tokens":3}})", openai_api::chat));
  t.on_chunk(10.51, parse_openai_chunk("[DONE]", openai_api::chat));
  EXPECT_DOUBLE_EQ(t.ttft_s(), 0.25);
  EXPECT_NEAR(t.e2el_s(), 0.45, 1e-12);  // the last token event, not the usage chunk or [DONE]
  ASSERT_EQ(t.itl_s().size(), 3u);
  EXPECT_NEAR(t.itl_s()[0], 0.05, 1e-12);
  EXPECT_NEAR(t.itl_s()[1], 0.0, 1e-12);
  EXPECT_NEAR(t.itl_s()[2], 0.15, 1e-12);
  EXPECT_EQ(t.text(), "ab");
  EXPECT_EQ(t.usage_completion_tokens(), 3);
  EXPECT_EQ(t.token_events(), 4u);  // timed as vLLM does, the role-only chunk included
  EXPECT_EQ(t.text_events(), 2u);   // counted as output tokens without usage or tokenizer
  EXPECT_TRUE(t.done());
}

// A stream that stops after some tokens without saying it ended (no finish_reason, no
// "[DONE]", no usage) was cut short; any one of the three is an end.
TEST(RequestTiming, AStreamWithoutAnEndDidNotEnd) {
  const auto token =
      parse_openai_chunk(R"({"choices":[{"index":0,"text":" a","finish_reason":null}]})", openai_api::completions);
  request_timing cut(0);
  cut.on_chunk(0.1, token);
  cut.on_chunk(0.2, token);
  EXPECT_TRUE(cut.has_first_token());
  EXPECT_FALSE(cut.saw_end());
  request_timing finished(0);
  finished.on_chunk(0.1, token);
  finished.on_chunk(0.2, parse_openai_chunk(R"({"choices":[{"index":0,"text":"","finish_reason":"stop"}]})",
                                            openai_api::completions));
  EXPECT_TRUE(finished.saw_end());
  request_timing done(0);
  done.on_chunk(0.1, token);
  done.on_chunk(0.2, parse_openai_chunk("[DONE]", openai_api::completions));
  EXPECT_TRUE(done.saw_end());
  request_timing usage(0);
  usage.on_chunk(0.1, token);
  usage.on_chunk(0.2, parse_openai_chunk(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}})",
                                         openai_api::completions));
  EXPECT_TRUE(usage.saw_end());
}

}  // namespace
}  // namespace ironbench::serve
