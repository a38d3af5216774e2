// Reasoning told apart from the answer: the three forms servers send it in, think tags split
// across events, and the per-request and per-point numbers built from them.
#include "serve/client/reasoning_split.hpp"

#include <gtest/gtest.h>

#include "serve/client/openai_stream.hpp"
#include "serve/measures/reasoning_metrics.hpp"

namespace ironbench::serve {
namespace {

TEST(ReasoningChunk, ReadsBothReasoningFieldsAndTheReportedReasoningTokens) {
  auto c =
      parse_openai_chunk(R"({"choices":[{"delta":{"role":"assistant","reasoning_content":"Let"}}]})", openai_api::chat);
  EXPECT_TRUE(c.has_choices);
  EXPECT_EQ(c.reasoning, "Let");
  EXPECT_EQ(c.reasoning_from, reasoning_field::reasoning_content);
  EXPECT_EQ(c.text, "");
  c = parse_openai_chunk(R"({"choices":[{"delta":{"reasoning":" me","content":null}}]})", openai_api::chat);
  EXPECT_EQ(c.reasoning, " me");
  EXPECT_EQ(c.reasoning_from, reasoning_field::reasoning);
  EXPECT_FALSE(c.malformed);
  // Servers that send both carry the same text in each: it counts once.
  c = parse_openai_chunk(R"({"choices":[{"delta":{"reasoning_content":"x","reasoning":"x"}}]})", openai_api::chat);
  EXPECT_EQ(c.reasoning, "x");
  EXPECT_EQ(c.reasoning_from, reasoning_field::reasoning_content);
  // A null or empty reasoning field is no reasoning; the answer goes on in content.
  c = parse_openai_chunk(R"({"choices":[{"delta":{"reasoning_content":null,"content":"42"}}]})", openai_api::chat);
  EXPECT_EQ(c.reasoning, "");
  EXPECT_EQ(c.reasoning_from, reasoning_field::none);
  EXPECT_EQ(c.text, "42");
  // A whole (non-streaming) reply's message.
  c = parse_openai_chunk(R"({"choices":[{"message":{"content":"A","reasoning_content":"R R"}}]})", openai_api::chat);
  EXPECT_EQ(c.text, "A");
  EXPECT_EQ(c.reasoning, "R R");
  c = parse_openai_chunk(
      R"({"choices":[],"usage":{"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":12}}})",
      openai_api::chat);
  EXPECT_EQ(c.completion_tokens, 30);
  EXPECT_EQ(c.reasoning_tokens, 12);
  // The completions API has no reasoning fields: a "reasoning" key beside the text is ignored.
  c = parse_openai_chunk(R"({"choices":[{"text":"t","reasoning":"r"}]})", openai_api::completions);
  EXPECT_EQ(c.text, "t");
  EXPECT_EQ(c.reasoning, "");
}

TEST(ReasoningTracker, ReasoningFieldsThenContent) {
  reasoning_tracker t;
  t.on_event(1.0, "", reasoning_field::none, "");  // a role-only chunk: no token of either kind
  t.on_event(1.1, "Let", reasoning_field::reasoning_content, "");
  t.on_event(1.2, " me", reasoning_field::reasoning_content, "");
  t.on_event(1.3, "", reasoning_field::none, "\n\n");
  t.on_event(1.4, "", reasoning_field::none, "Yes");
  t.finish();
  EXPECT_TRUE(t.saw_reasoning());
  EXPECT_EQ(t.style(), "reasoning_content");
  EXPECT_DOUBLE_EQ(*t.first_reasoning_s(), 1.1);
  EXPECT_DOUBLE_EQ(*t.first_answer_s(), 1.3);  // the whitespace after the reasoning is the answer's first token
  EXPECT_EQ(t.reasoning_events(), 2u);
  EXPECT_EQ(t.answer_events(), 2u);
  EXPECT_EQ(t.content_reasoning_bytes(), 0u);
}

TEST(ReasoningTracker, ThinkTagsWithLeadingWhitespace) {
  reasoning_tracker t;
  t.on_event(1.0, "", reasoning_field::none, "\n");
  t.on_event(2.0, "", reasoning_field::none, "<think>");
  t.on_event(3.0, "", reasoning_field::none, "hmm");
  t.on_event(4.0, "", reasoning_field::none, "</think>");
  t.on_event(5.0, "", reasoning_field::none, "Paris");
  t.on_event(6.0, "", reasoning_field::none, ".");
  t.finish();
  EXPECT_EQ(t.style(), "think_tags");
  EXPECT_DOUBLE_EQ(*t.first_reasoning_s(), 1.0);  // the whitespace before the tag is the reasoning's
  EXPECT_DOUBLE_EQ(*t.first_answer_s(), 5.0);
  EXPECT_EQ(t.reasoning_events(), 4u);
  EXPECT_EQ(t.answer_events(), 2u);
  EXPECT_EQ(t.content_reasoning_bytes(), std::string("\n<think>hmm</think>").size());
}

TEST(ReasoningTracker, TagsSplitAcrossEvents) {
  reasoning_tracker t;
  t.on_event(1.0, "", reasoning_field::none, "<thi");
  EXPECT_FALSE(t.saw_reasoning());  // not known yet
  t.on_event(2.0, "", reasoning_field::none, "nk>a");
  EXPECT_DOUBLE_EQ(*t.first_reasoning_s(), 1.0);
  t.on_event(3.0, "", reasoning_field::none, "b</");
  t.on_event(4.0, "", reasoning_field::none, "thi");
  EXPECT_FALSE(t.first_answer_s().has_value());
  t.on_event(5.0, "", reasoning_field::none, "nk>ans");
  t.on_event(6.0, "", reasoning_field::none, "wer");
  t.finish();
  EXPECT_DOUBLE_EQ(*t.first_answer_s(), 5.0);
  EXPECT_EQ(t.reasoning_events(), 5u);  // events 1 to 5 carried reasoning bytes
  EXPECT_EQ(t.answer_events(), 2u);     // events 5 and 6 answer bytes
  EXPECT_EQ(t.content_reasoning_bytes(), std::string("<think>ab</think>").size());
}

TEST(ReasoningTracker, ClosingTagWithoutAnOpeningOneMakesWhatCameBeforeReasoning) {
  // DeepSeek-R1's template puts <think> in the prompt: the output starts inside the reasoning.
  reasoning_tracker t;
  t.on_event(1.0, "", reasoning_field::none, "Okay");
  t.on_event(2.0, "", reasoning_field::none, " so");
  EXPECT_DOUBLE_EQ(*t.first_answer_s(), 1.0);  // as far as anyone can tell yet
  t.on_event(3.0, "", reasoning_field::none, "</think>");
  t.on_event(4.0, "", reasoning_field::none, "4");
  t.finish();
  EXPECT_EQ(t.style(), "think_tags");
  EXPECT_DOUBLE_EQ(*t.first_reasoning_s(), 1.0);
  EXPECT_DOUBLE_EQ(*t.first_answer_s(), 4.0);
  EXPECT_EQ(t.reasoning_events(), 3u);
  EXPECT_EQ(t.answer_events(), 1u);
  EXPECT_EQ(t.content_reasoning_bytes(), std::string("Okay so</think>").size());
}

TEST(ReasoningTracker, AnAnswerWithoutTagsIsAllAnswerAndHeldBytesKeepTheirTime) {
  reasoning_tracker t;
  t.on_event(1.0, "", reasoning_field::none, "<");          // might start <think>: held
  t.on_event(2.0, "", reasoning_field::none, "div> x </");  // "</" might start </think>: held
  t.on_event(3.0, "", reasoning_field::none, "div>");
  t.finish();
  EXPECT_FALSE(t.saw_reasoning());
  EXPECT_EQ(t.style(), "");
  EXPECT_DOUBLE_EQ(*t.first_answer_s(), 1.0);
  EXPECT_EQ(t.answer_events(), 3u);
  // The stream ends inside a held prefix: it is classified where it stands.
  reasoning_tracker held;
  held.on_event(1.0, "", reasoning_field::none, "a</thi");
  held.finish();
  EXPECT_EQ(held.answer_events(), 1u);
  EXPECT_FALSE(held.saw_reasoning());
  // An unclosed think region is reasoning to the end.
  reasoning_tracker open;
  open.on_event(1.0, "", reasoning_field::none, "<think>still");
  open.on_event(2.0, "", reasoning_field::none, " going</thi");
  open.finish();
  EXPECT_EQ(open.reasoning_events(), 2u);
  EXPECT_FALSE(open.first_answer_s().has_value());
  // After the reasoning closes, tags are answer text.
  reasoning_tracker after;
  after.on_event(1.0, "", reasoning_field::none, "<think>r</think>a <think> b");
  after.finish();
  EXPECT_EQ(after.content_reasoning_bytes(), std::string("<think>r</think>").size());
  EXPECT_EQ(after.answer_events(), 1u);
  EXPECT_EQ(after.reasoning_events(), 1u);
}

TEST(ReasoningTracker, RequestTimingFeedsItAndCountsReasoningEventsAsTextEvents) {
  request_timing timing(10.0);
  for (const auto& [t, data] : std::vector<std::pair<double, std::string>>{
           {10.5, R"({"choices":[{"delta":{"role":"assistant","reasoning":"a"}}]})"},
           {10.6, R"({"choices":[{"delta":{"reasoning":"b"}}]})"},
           {10.7, R"({"choices":[{"delta":{"content":"c"}}]})"},
           {10.8, R"({"choices":[{"delta":{"content":"d"},"finish_reason":"length"}]})"},
           {10.8, R"({"choices":[],"usage":{"completion_tokens":4}})"}}) {
    timing.on_chunk(t, parse_openai_chunk(data, openai_api::chat));
  }
  timing.finish_reasoning();
  EXPECT_DOUBLE_EQ(timing.ttft_s(), 0.5);  // TTFT: the first token of any kind
  EXPECT_EQ(timing.text_events(), 4u);
  const auto r = measure_reasoning(timing, 4, nullptr);
  EXPECT_EQ(r.style, "reasoning");
  EXPECT_NEAR(*r.ttft_reasoning_s, 0.5, 1e-12);
  EXPECT_NEAR(*r.ttft_answer_s, 0.7, 1e-12);
  EXPECT_EQ(r.reasoning_tokens, 2);
  EXPECT_EQ(r.answer_tokens, 2);
  EXPECT_EQ(r.token_source, "events");
}

TEST(ReasoningTracker, ReportedReasoningTokensWinAndAHiddenReasoningStillCounts) {
  request_timing timing(0.0);
  timing.on_chunk(1.0, parse_openai_chunk(R"({"choices":[{"delta":{"content":"x"}}]})", openai_api::chat));
  timing.on_chunk(
      1.5, parse_openai_chunk(
               R"({"choices":[],"usage":{"completion_tokens":90,"completion_tokens_details":{"reasoning_tokens":80}}})",
               openai_api::chat));
  timing.finish_reasoning();
  const auto r = measure_reasoning(timing, 90, nullptr);
  EXPECT_EQ(r.style, "usage");  // the server hid the text (o-series models) but counted it
  EXPECT_FALSE(r.ttft_reasoning_s.has_value());
  EXPECT_EQ(r.reasoning_tokens, 80);
  EXPECT_EQ(r.answer_tokens, 10);
  EXPECT_EQ(r.token_source, "usage");
  // A count above the output's length is not believed: no split from usage.
  EXPECT_FALSE(measure_reasoning(timing, 50, nullptr).present());
}

request_record reasoning_request(double ttft_r, double ttft_a, double e2el, std::int64_t reasoning,
                                 std::int64_t answer) {
  request_record r;
  r.success = true;
  r.ttft_s = ttft_r;
  r.e2el_s = e2el;
  r.output_len = reasoning + answer;
  r.reasoning.style = "reasoning_content";
  r.reasoning.ttft_reasoning_s = ttft_r;
  r.reasoning.ttft_answer_s = ttft_a;
  r.reasoning.reasoning_tokens = reasoning;
  r.reasoning.answer_tokens = answer;
  r.reasoning.token_source = "usage";
  return r;
}

TEST(ReasoningMetrics, PointStatisticsAndTotals) {
  std::vector<request_record> records = {reasoning_request(0.010, 0.110, 0.210, 10, 11),
                                         reasoning_request(0.020, 0.220, 0.320, 20, 11)};
  request_record plain;  // no reasoning: all answer
  plain.success = true;
  plain.output_len = 5;
  plain.ttft_s = 0.030;
  plain.e2el_s = 0.070;
  plain.reasoning.ttft_answer_s = 0.030;
  records.push_back(plain);
  request_record failed;
  failed.reasoning = records[0].reasoning;
  records.push_back(failed);
  const auto m = reasoning_metrics(records, metric_selection{});
  EXPECT_EQ(m.at("requests_with_reasoning"), 2);
  EXPECT_EQ(m.at("total_reasoning_tokens"), 30);
  EXPECT_EQ(m.at("total_answer_tokens"), 27);
  EXPECT_EQ(m.at("reasoning_token_sources").at("usage"), 2);
  EXPECT_EQ(m.at("reasoning_styles").at("reasoning_content"), 2);
  EXPECT_EQ(m.at("tpot_itl_tokens"), "reasoning+answer");
  EXPECT_NEAR(m.at("mean_ttft_reasoning_ms").get<double>(), 15, 1e-9);
  EXPECT_NEAR(m.at("median_ttft_answer_ms").get<double>(), 110, 1e-9);  // of 30, 110, 220
  EXPECT_TRUE(m.contains("p99_ttft_answer_ms"));
  // Answer TPOT: (E2EL - first answer token) / (answer tokens - 1): 10 ms, 10 ms, 10 ms.
  EXPECT_NEAR(m.at("mean_answer_tpot_ms").get<double>(), 10, 1e-9);
  EXPECT_NE(reasoning_summary(m, metric_selection{}).find("TTFT answer median / P99 (ms):"), std::string::npos);
  // Nothing when no request reasoned.
  EXPECT_TRUE(reasoning_metrics({plain}, metric_selection{}).empty());
  EXPECT_EQ(reasoning_summary(json::object(), metric_selection{}), "");
}

}  // namespace
}  // namespace ironbench::serve
