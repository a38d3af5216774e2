#include "serve/client/sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ironbench::serve {
namespace {

std::vector<sse_event> parse_all(const std::string& text, std::size_t split = 0) {
  std::vector<sse_event> events;
  sse_parser parser([&](const sse_event& e) { events.push_back(e); });
  if (split == 0) {
    parser.feed(text);
  } else {
    for (std::size_t i = 0; i < text.size(); i += split) parser.feed(std::string_view(text).substr(i, split));
  }
  (void)parser.finish();
  return events;
}

const std::string stream =
    ": keep-alive comment\r\n"
    "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"\"}}]}\r\r"
    "event: ping\ndata: first line\ndata: second line\nid: 7\n\n"
    "data:no-space\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

TEST(SseParser, EventsCommentsAndEveryLineEnding) {
  const auto events = parse_all(stream);
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(events[0].data, "{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}");
  EXPECT_EQ(events[2].data, "{\"choices\":[{\"delta\":{\"content\":\"\"}}]}");  // CR CR
  EXPECT_EQ(events[3].event, "ping");
  EXPECT_EQ(events[3].data, "first line\nsecond line");
  EXPECT_EQ(events[3].id, "7");
  EXPECT_EQ(events[4].data, "no-space");
  EXPECT_EQ(events[6].data, "[DONE]");
}

TEST(SseParser, AnySplitOfTheBytesGivesTheSameEvents) {
  const auto whole = parse_all(stream);
  for (std::size_t split = 1; split < 40; ++split) {
    const auto pieces = parse_all(stream, split);
    ASSERT_EQ(pieces.size(), whole.size()) << "split " << split;
    for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(pieces[i].data, whole[i].data) << "split " << split;
  }
}

TEST(SseParser, AnEmptyReadBetweenCarriageReturnAndLineFeedChangesNothing) {
  std::vector<sse_event> events;
  sse_parser parser([&](const sse_event& e) { events.push_back(e); });
  parser.feed("data: a\r");
  parser.feed("");
  parser.feed("\ndata: b\n\n");
  (void)parser.finish();
  ASSERT_EQ(events.size(), 1u);  // as "data: a\r\ndata: b\n\n" in one piece
  EXPECT_EQ(events[0].data, "a\nb");
}

TEST(SseParser, LongLinesAndTruncatedStreams) {
  const std::string big(5 << 20, 'x');
  auto events = parse_all("data: " + big + "\n\n", 4096);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data.size(), big.size());

  std::vector<sse_event> got;
  sse_parser parser([&](const sse_event& e) { got.push_back(e); });
  parser.feed("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi");
  EXPECT_EQ(got.size(), 1u);
  EXPECT_TRUE(parser.finish());  // cut off mid-event
  sse_parser clean([](const sse_event&) {});
  clean.feed("data: x\n\n");
  EXPECT_FALSE(clean.finish());
}

}  // namespace
}  // namespace ironbench::serve
